package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/storage"
)

// DigestLog is one desk of a store that keeps digests, as DigestRule drives it: its log,
// which keeps the desk's digests (digest.Store), and a way to add rows to it.
type DigestLog interface {
	digest.Store
	// Append stores m as the desk's newest row and returns the stored row.
	Append(ctx context.Context, m transcript.Message) (transcript.Message, error)
}

// DigestDesk is a DigestLog and its desk's name, the Desk of its conversations.
type DigestDesk struct {
	Name string
	Log  DigestLog
	// Renew, when not nil, deletes the desk, its rows and its digests, and returns the log
	// of the desk its next row makes anew under the same name (a Store's Log of the name
	// may be the one it had). DigestRule's DeskMadeAnew part needs it.
	Renew func(ctx context.Context) (DigestLog, error)
}

// DigestDeskOf returns desk of st as a DigestDesk, and fails t when st's logs keep no
// digests. When st is a DeskDeleter, the DigestDesk's Renew deletes the desk with
// DeleteDesk, its tokens too.
func DigestDeskOf(t testing.TB, st Store, desk string) DigestDesk {
	t.Helper()
	log, ok := st.Log(desk).(digest.Store)
	if !ok {
		t.Fatalf("storetest: the Log of desk %q, a %T, does not implement digest.Store", desk, st.Log(desk))
	}
	d := DigestDesk{Name: desk, Log: storeDigestLog{Store: log, st: st, desk: desk}}
	if del, ok := st.(DeskDeleter); ok {
		d.Renew = func(ctx context.Context) (DigestLog, error) {
			if _, err := del.DeleteDesk(ctx, desk, true); err != nil {
				return nil, err
			}
			return storeDigestLog{Store: st.Log(desk).(digest.Store), st: st, desk: desk}, nil
		}
	}
	return d
}

// storeDigestLog is a desk of a Store as a DigestLog: its Log, and appends to it.
type storeDigestLog struct {
	digest.Store
	st   Store
	desk string
}

func (l storeDigestLog) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	return l.st.Append(ctx, l.desk, m)
}

// MustDigestRead returns log's DigestRead, as a fold takes it before reading rows, and
// fails tb when it fails.
func MustDigestRead(tb testing.TB, log digest.Store) storage.DigestRead {
	tb.Helper()
	r, err := log.DigestRead(tb.Context())
	if err != nil {
		tb.Fatalf("DigestRead: %v", err)
	}
	return r
}

// DigestErasedWords are the words DigestErasure folds into digests and then redacts: a
// store's own test looks for them in its files once the rule has run and the store is
// closed.
var DigestErasedWords = []string{"qzvxkwdigestword", "qzvxkwdigestlarge"}

// DigestRule checks the digest.Store contract on desks from newDesk, each new and empty,
// as a subtest for each part:
//
//   - Read: Digest returns the newest digest whose Through is below its bound (0: none),
//     exactly as stored, the channel's and each thread's apart, and false when there is
//     none; a conversation of another desk is an error matching storage.ErrInvalidDigest.
//     DigestRead returns the desk's head, and for a new desk another Desk than any other
//     desk's.
//   - Isolation: one desk's digests are never another's.
//   - Generations: PutDigest stores generation 1 only when the conversation has no digest,
//     and generation g only over generation g-1 with a Through above it; anything else is
//     digest.ErrSuperseded, a digest no fold could make is storage.ErrInvalidDigest, and
//     neither stores anything.
//   - CorrectedAfterRead: a row appended after read that corrects a row at or below the
//     digest's Through makes PutDigest ErrSuperseded; a correction of a row above it, or
//     one read already, does not.
//   - DeletedByCorrection: an edit or a redaction of a row deletes the digests of the
//     row's channel and of its parent's thread whose Through is at or above the row's
//     Seq, and no other: not those below it, not another thread's, not a root's own
//     thread's; the next generation then follows the newest one kept.
//   - AsideCorrected: an edit or a redaction of an aside (in the channel or a thread, at
//     or below the digests' Through) deletes no digest, and a correction of an aside
//     appended after a fold's read does not make its PutDigest ErrSuperseded: a digest
//     folds no aside, and a reader who may not read one sees no digest change for it.
//   - FoldCurrent: the Current of a fold's request (digest.Request) answers nil while
//     rows are appended after the fold's read, more than a page of them included, and
//     ErrSuperseded once a row it sends is redacted, however many rows came between.
//   - Race: PutDigests of one generation from several goroutines at once store exactly
//     one, the others ErrSuperseded.
//   - DeskMadeAnew, when the desk has Renew: a fold's read of the desk, then the desk
//     deleted and made anew under its name with as many rows or more: the PutDigest of
//     what the fold read is ErrSuperseded and the new desk holds no digest; a read of the
//     new desk then stores.
//   - Erasure: DigestErasure.
func DigestRule(t *testing.T, newDesk func(t *testing.T) DigestDesk) {
	t.Helper()
	for _, c := range digestChecks {
		t.Run(c.name, func(t *testing.T) { c.run(t, func() DigestDesk { return newDesk(t) }) })
	}
}

// digestChecks are DigestRule's parts, each run on new desks from its newDesk.
var digestChecks = []struct {
	name string
	run  func(t reporter, newDesk func() DigestDesk)
}{
	{"Read", checkDigestRead},
	{"Isolation", checkDigestIsolation},
	{"Generations", checkDigestGenerations},
	{"CorrectedAfterRead", checkDigestCorrectedAfterRead},
	{"FoldCurrent", checkDigestFoldCurrent},
	{"DeletedByCorrection", checkDigestDeletedByCorrection},
	{"AsideCorrected", checkDigestAsideCorrected},
	{"Race", checkDigestRace},
	{"DeskMadeAnew", checkDigestDeskMadeAnew},
	{"Erasure", func(t reporter, newDesk func() DigestDesk) { digestErasure(t, newDesk()) }},
}

// checkDigests runs DigestRule on desks of st, each named anew.
func checkDigests(t *testing.T, st Store) {
	n := 0
	DigestRule(t, func(t *testing.T) DigestDesk {
		n++
		return DigestDeskOf(t, st, fmt.Sprintf("digests-%d", n))
	})
}

// digestDesk is a DigestDesk under test, with its head.
type digestDesk struct {
	t reporter
	DigestDesk
	head transcript.Sequence
}

func newDigestDesk(t reporter, newDesk func() DigestDesk) *digestDesk {
	t.Helper()
	return &digestDesk{t: t, DigestDesk: newDesk()}
}

// add appends m and returns its Seq.
func (d *digestDesk) add(m transcript.Message) transcript.Sequence {
	d.t.Helper()
	got, err := d.Log.Append(d.t.Context(), m)
	if err != nil {
		d.t.Fatalf("desk %q: Append of %s: %v", d.Name, describeCorrection(m), err)
	}
	d.head = got.Seq
	return got.Seq
}

// roots appends n roots and returns the Seq of the first.
func (d *digestDesk) roots(n int) transcript.Sequence {
	d.t.Helper()
	first := d.head + 1
	for i := range n {
		d.add(root(fmt.Sprintf("root %d", i)))
	}
	return first
}

// conv is the desk's channel (thread 0) or thread.
func (d *digestDesk) conv(thread transcript.Sequence) transcript.Conversation {
	return transcript.Conversation{Desk: d.Name, Thread: thread}
}

// digest returns a digest of thread, generation gen, through through.
func (d *digestDesk) digest(thread transcript.Sequence, gen int, through transcript.Sequence, text string) transcript.Digest {
	return transcript.Digest{Conversation: d.conv(thread), Through: through, Rows: 3 * gen, Generation: gen, Digester: "storetest", Text: text}
}

// read returns the desk's DigestRead, as a fold takes it before reading rows, and fails
// the test unless its Head is the desk's head.
func (d *digestDesk) read() storage.DigestRead {
	d.t.Helper()
	r, err := d.Log.DigestRead(d.t.Context())
	switch {
	case err != nil:
		d.t.Fatalf("desk %q: DigestRead: %v", d.Name, err)
	case r.Head != d.head:
		d.t.Errorf("desk %q: DigestRead = head %d, want %d, the newest row appended", d.Name, r.Head, d.head)
	}
	return r
}

// put stores dg as the fold that read the desk at its head would, and fails the test when
// the store refuses it.
func (d *digestDesk) put(dg transcript.Digest) {
	d.t.Helper()
	if err := d.Log.PutDigest(d.t.Context(), dg, d.read()); err != nil {
		d.t.Fatalf("desk %q: PutDigest of %s, read at %d: %v", d.Name, describeDigest(dg), d.head, err)
	}
}

// refused checks that err, PutDigest's of dg, matches want, and that dg was not stored.
func (d *digestDesk) refused(dg transcript.Digest, err, want error, what string) {
	d.t.Helper()
	if !errors.Is(err, want) {
		d.t.Errorf("desk %q: PutDigest of %s (%s): %v, want an error matching %v", d.Name, describeDigest(dg), what, err, want)
	}
	for below := transcript.Sequence(0); below <= d.head+1; below++ {
		got, ok, err := d.Log.Digest(d.t.Context(), dg.Conversation, below)
		if err == nil && ok && got.Generation == dg.Generation && got.Text == dg.Text && got.Through == dg.Through {
			d.t.Errorf("desk %q: PutDigest of %s (%s) was refused, but Digest below %d returns it", d.Name, describeDigest(dg), what, below)
			return
		}
	}
}

// want checks that the newest digest of thread below below is want, or that there is
// none when want is nil.
func (d *digestDesk) want(thread, below transcript.Sequence, want *transcript.Digest) {
	d.t.Helper()
	d.wantAfter("", thread, below, want)
}

// wantAfter is want, its errors saying after what.
func (d *digestDesk) wantAfter(what string, thread, below transcript.Sequence, want *transcript.Digest) {
	d.t.Helper()
	name := fmt.Sprintf("desk %q: Digest of %s below %d", d.Name, storage.ConversationName(d.conv(thread)), below)
	if what != "" {
		name += " after the " + what
	}
	got, ok, err := d.Log.Digest(d.t.Context(), d.conv(thread), below)
	d.wantOneGo(name, d.conv(thread), below, got, ok, err)
	switch {
	case err != nil:
		d.t.Errorf("%s: %v", name, err)
	case want == nil && ok:
		d.t.Errorf("%s = %s, want none", name, describeDigest(got))
	case want != nil && !ok:
		d.t.Errorf("%s: none, want %s", name, describeDigest(*want))
	case want != nil:
		if diff := cmp.Diff(*want, got); diff != "" {
			d.t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// pageDigestReader is a Log that reads a page and a digest in one go (transcript.Project
// reads a view's first page and its digest so when a Log can).
type pageDigestReader interface {
	ReadBeforeDigest(ctx context.Context, before transcript.Sequence, limit int, c transcript.Conversation, below transcript.Sequence, digest func(transcript.Digest, bool, error)) (transcript.Page, error)
}

// wantOneGo checks, when the desk is a Store's whose Logs read a page and a digest in one
// go, that a new Log's ReadBeforeDigest of the newest rows and of c's digest below below
// answers as ReadBefore and Digest do (Digest answered want, ok and err; an error matches
// its storage sentinel), and the Log's next ReadBeforeDigest, which continues the first
// read, too.
func (d *digestDesk) wantOneGo(name string, c transcript.Conversation, below transcript.Sequence, want transcript.Digest, ok bool, err error) {
	d.t.Helper()
	sl, isStore := d.Log.(storeDigestLog)
	if !isStore {
		return
	}
	pd, oneGo := sl.st.Log(sl.desk).(pageDigestReader)
	if !oneGo {
		return
	}
	ctx := d.t.Context()
	before := transcript.Sequence(0)
	for read := range 2 {
		wantPage, pageErr := sl.st.Log(sl.desk).ReadBefore(ctx, before, 3)
		if pageErr != nil {
			d.t.Fatalf("%s: ReadBefore(%d, 3): %v", name, before, pageErr)
		}
		calls := 0
		var (
			got   transcript.Digest
			gotOK bool
			got2  error
		)
		page, pageErr := pd.ReadBeforeDigest(ctx, before, 3, c, below, func(dg transcript.Digest, ok bool, err error) {
			calls++
			got, gotOK, got2 = dg, ok, err
		})
		what := fmt.Sprintf("%s, read in one go with the page before %d (read %d of a Log)", name, before, read+1)
		switch {
		case pageErr != nil:
			d.t.Errorf("%s: %v", what, pageErr)
			return
		case calls != 1:
			d.t.Errorf("%s: the digest was passed on %d times, want once", what, calls)
		case (got2 == nil) != (err == nil) || errors.Is(err, storage.ErrInvalidDigest) != errors.Is(got2, storage.ErrInvalidDigest):
			d.t.Errorf("%s: error %v, want one as Digest's: %v", what, got2, err)
		case gotOK != ok:
			d.t.Errorf("%s: found %v, want %v as Digest", what, gotOK, ok)
		case ok:
			if diff := cmp.Diff(want, got); diff != "" {
				d.t.Errorf("%s: not Digest's (-Digest +one go):\n%s", what, diff)
			}
		}
		if (len(page.Messages) == 0) != (len(wantPage.Messages) == 0) || len(page.Messages) > len(wantPage.Messages) {
			d.t.Errorf("%s: %d rows, want 1 to %d as ReadBefore's", what, len(page.Messages), len(wantPage.Messages))
		} else if diff := cmp.Diff(wantPage.Messages[:len(page.Messages)], page.Messages); diff != "" {
			d.t.Errorf("%s: rows not ReadBefore's (-ReadBefore +one go):\n%s", what, diff)
		}
		if page.Next == 0 {
			return
		}
		before = page.Next
	}
}

// describeDigest names dg for an error message, without its text.
func describeDigest(dg transcript.Digest) string {
	return fmt.Sprintf("the digest of %s, generation %d through %d", storage.ConversationName(dg.Conversation), dg.Generation, dg.Through)
}

// checkDigestRead: Digest's bound, its newest-first choice, the channel and threads apart.
func checkDigestRead(t reporter, newDesk func() DigestDesk) {
	d := newDigestDesk(t, newDesk)
	d.want(0, 0, nil)
	d.want(1, 0, nil)
	d.roots(12)
	d.want(0, 0, nil)
	d.want(0, 5, nil)
	g1 := d.digest(0, 1, 3, "rows 1 to 3: <digest of=\"x\"> & \"quotes\", naïve café 🚀\nsecond line")
	g2 := d.digest(0, 2, 6, "rows 1 to 6")
	g3 := d.digest(0, 3, 9, strings.Repeat("a long digest ", 600))
	for _, dg := range []transcript.Digest{g1, g2, g3} {
		d.put(dg)
	}
	for _, c := range []struct {
		below transcript.Sequence
		want  *transcript.Digest
	}{
		{0, &g3}, {13, &g3}, {10, &g3}, {9, &g2}, {7, &g2}, {6, &g1}, {4, &g1}, {3, nil}, {1, nil},
	} {
		d.want(0, c.below, c.want)
	}
	d.want(1, 0, nil) // a thread has digests of its own
	first := d.add(reply(1, "a reply"))
	d.add(reply(1, "another"))
	th := d.digest(1, 1, first, "the thread's first reply")
	d.put(th)
	d.want(1, 0, &th)
	d.want(1, first, nil)
	d.want(0, 0, &g3)
	d.want(2, 0, nil)
	for _, c := range []transcript.Conversation{{Desk: d.Name + "-other"}, {Desk: d.Name + "-other", Thread: 1}} {
		got, ok, err := d.Log.Digest(t.Context(), c, 0)
		if !errors.Is(err, storage.ErrInvalidDigest) {
			t.Errorf("desk %q: Digest of desk %q's %s = %s, %v, %v; want an error matching storage.ErrInvalidDigest", d.Name, c.Desk, storage.ConversationName(c), describeDigest(got), ok, err)
		}
		d.wantOneGo(fmt.Sprintf("desk %q: Digest of desk %q's %s", d.Name, c.Desk, storage.ConversationName(c)), c, 0, got, ok, err)
	}
}

// checkDigestIsolation: one desk's digests are never another's.
func checkDigestIsolation(t reporter, newDesk func() DigestDesk) {
	a, b := newDigestDesk(t, newDesk), newDigestDesk(t, newDesk)
	a.roots(4)
	b.roots(4)
	dg := a.digest(0, 1, 2, "desk a only")
	a.put(dg)
	a.want(0, 0, &dg)
	b.want(0, 0, nil)
	other := b.digest(0, 1, 3, "desk b only")
	b.put(other)
	a.want(0, 0, &dg)
	b.want(0, 0, &other)
	if ra, rb := a.read(), b.read(); ra.Desk == rb.Desk {
		t.Errorf("DigestRead of desks %q and %q: both Desk %d, want each its own", a.Name, b.Name, ra.Desk)
	}
	// A conversation that leaves Desk empty, as a Query may, is the log's own desk's.
	if got, ok, err := a.Log.Digest(t.Context(), transcript.Conversation{}, 0); err != nil || !ok || got.Text != dg.Text {
		t.Errorf("desk %q: Digest of the channel with no Desk named = %s, %v, %v; want %s", a.Name, describeDigest(got), ok, err, describeDigest(dg))
	}
}

// checkDigestGenerations: PutDigest's generation and Through checks, and its refusal of
// digests no fold could make.
func checkDigestGenerations(t reporter, newDesk func() DigestDesk) {
	ctx := t.Context()
	d := newDigestDesk(t, newDesk)
	d.roots(10)
	put := func(dg transcript.Digest) error { return d.Log.PutDigest(ctx, dg, d.read()) }

	for _, dg := range []transcript.Digest{d.digest(0, 2, 3, "generation 2 first"), d.digest(0, 3, 3, "generation 3 first")} {
		d.refused(dg, put(dg), digest.ErrSuperseded, "no digest held")
	}
	g1 := d.digest(0, 1, 3, "generation 1")
	d.put(g1)
	for _, c := range []struct {
		dg   transcript.Digest
		what string
	}{
		{d.digest(0, 1, 5, "generation 1 again"), "generation 1 held"},
		{d.digest(0, 3, 5, "generation 3"), "generation 1 held, not 2"},
		{d.digest(0, 2, 3, "generation 2 through 3"), "through not above the held one's"},
		{d.digest(0, 2, 2, "generation 2 through 2"), "through below the held one's"},
	} {
		d.refused(c.dg, put(c.dg), digest.ErrSuperseded, c.what)
	}
	d.want(0, 0, &g1)
	g2 := d.digest(0, 2, 4, "generation 2")
	d.put(g2)
	d.want(0, 0, &g2)
	twice := d.digest(0, 2, 6, "generation 2 twice")
	d.refused(twice, put(twice), digest.ErrSuperseded, "generation 2 held")

	th := d.add(root("a thread"))
	d.add(reply(th, "its reply"))
	t1 := d.digest(th, 1, th+1, "the thread's generation 1") // the channel's generations are not the thread's
	d.put(t1)
	d.want(th, 0, &t1)
	d.want(0, 0, &g2)

	bad := func(edit func(dg *transcript.Digest)) transcript.Digest {
		dg := d.digest(0, 3, 7, "generation 3")
		edit(&dg)
		return dg
	}
	for _, c := range []struct {
		dg   transcript.Digest
		what string
	}{
		{bad(func(dg *transcript.Digest) { dg.Conversation.Desk += "-other" }), "another desk's"},
		{bad(func(dg *transcript.Digest) { dg.Generation = 0 }), "generation 0"},
		{bad(func(dg *transcript.Digest) { dg.Generation = -1 }), "generation -1"},
		{bad(func(dg *transcript.Digest) { dg.Through = 0 }), "through 0"},
		{bad(func(dg *transcript.Digest) { dg.Through = d.head + 1 }), "through beyond the head read"},
		{bad(func(dg *transcript.Digest) { dg.Conversation.Thread, dg.Through = th+1, th+1 }), "a thread's through at its root"},
		{bad(func(dg *transcript.Digest) { dg.Rows = -1 }), "rows -1"},
		{bad(func(dg *transcript.Digest) { dg.Text = "a NUL \x00 byte" }), "a NUL byte in the text"},
		{bad(func(dg *transcript.Digest) { dg.Text = "not UTF-8 \xff" }), "text that is not UTF-8"},
		{bad(func(dg *transcript.Digest) { dg.Digester = "bad \xff" }), "a digester that is not UTF-8"},
	} {
		d.refused(c.dg, put(c.dg), storage.ErrInvalidDigest, c.what)
	}
	d.want(0, 0, &g2)
	d.want(th, 0, &t1)
	d.put(d.digest(0, 3, 7, "generation 3"))
}

// checkDigestCorrectedAfterRead: a correction appended after a fold's read of a row it
// folded makes its PutDigest ErrSuperseded.
func checkDigestCorrectedAfterRead(t reporter, newDesk func() DigestDesk) {
	ctx := t.Context()
	d := newDigestDesk(t, newDesk)
	d.roots(8)
	read := d.read()
	op := transcript.Operator()
	d.add(edit(3, op, "root 3, edited")) // after the fold's read
	stale := d.digest(0, 1, 5, "rows 1 to 5 as they were")
	d.refused(stale, d.Log.PutDigest(ctx, stale, read), digest.ErrSuperseded, "row 3 edited after the read")
	below := d.digest(0, 1, 2, "rows 1 to 2")
	if err := d.Log.PutDigest(ctx, below, read); err != nil {
		t.Errorf("PutDigest of %s, read before an edit of row 3: %v, want it stored", describeDigest(below), err)
	}
	read = d.read()      // a fold that read the edit
	d.add(redact(7, op)) // a row above the next digest
	fresh := d.digest(0, 2, 5, "rows 1 to 5 with the edit")
	if err := d.Log.PutDigest(ctx, fresh, read); err != nil {
		t.Errorf("PutDigest of %s, read after row 3's edit, before row 7's redaction: %v, want it stored", describeDigest(fresh), err)
	}
	d.want(0, 0, &fresh)
	read = d.read()
	d.add(redact(3, op))
	gone := d.digest(0, 3, 6, "rows 1 to 6")
	d.refused(gone, d.Log.PutDigest(ctx, gone, read), digest.ErrSuperseded, "row 3 redacted after the read")
	d.want(0, 0, &below) // the redaction deleted generation 2
}

// checkDigestFoldCurrent: a fold's Request.Current reads the rows appended since its read,
// page after page, and finds a redaction of a row it sends below them.
func checkDigestFoldCurrent(t reporter, newDesk func() DigestDesk) {
	ctx := t.Context()
	d := newDigestDesk(t, newDesk)
	d.roots(60) // the default policy folds rows 1 to 30, and keeps 30 live
	var before, between, after error
	ask := currentDigester(func(ctx context.Context, r digest.Request) {
		before = r.Current(ctx)
		for range transcript.PageSize + 20 {
			d.add(root("appended while the digester ran"))
		}
		between = r.Current(ctx)
		d.add(redact(2, transcript.Operator()))
		for range 3 {
			d.add(root("appended after the redaction"))
		}
		after = r.Current(ctx)
	})
	if _, _, err := digest.Fold(ctx, d.Log, ask, digest.Policy{}, d.conv(0)); !errors.Is(err, digest.ErrSuperseded) {
		t.Errorf("Fold after a redaction of a row it sent: %v, want ErrSuperseded", err)
	}
	if before != nil || between != nil || !errors.Is(after, digest.ErrSuperseded) {
		t.Errorf("Current before any change: %v; after %d new rows: %v; after a redaction of row 2 and 3 rows more: %v; want nil, nil, ErrSuperseded",
			before, transcript.PageSize+20, between, after)
	}
}

// currentDigester is a Digester that calls its function with each request, then answers
// a digest naming how many rows it was sent.
type currentDigester func(ctx context.Context, r digest.Request)

func (f currentDigester) Digest(ctx context.Context, r digest.Request) (string, error) {
	f(ctx, r)
	return fmt.Sprintf("a digest of %d rows", len(r.Messages)), nil
}

// checkDigestDeletedByCorrection: which digests an edit and a redaction delete.
func checkDigestDeletedByCorrection(t reporter, newDesk func() DigestDesk) {
	d := newDigestDesk(t, newDesk)
	op, agent := transcript.Operator(), transcript.Agent("triage", "Triage")
	a := d.add(root("root a"))   // 1
	a1 := d.add(reply(a, "a.1")) // 2
	b := d.add(root("root b"))   // 3
	a2 := d.add(reply(a, "a.2")) // 4
	b1 := d.add(reply(b, "b.1")) // 5
	c := d.add(root("root c"))   // 6
	a3 := d.add(reply(a, "a.3")) // 7
	c1 := d.add(reply(c, "c.1")) // 8
	b2 := d.add(reply(b, "b.2")) // 9
	d.roots(3)                   // 10 to 12
	ch := []transcript.Digest{d.digest(0, 1, b, "ch 1"), d.digest(0, 2, c, "ch 2"), d.digest(0, 3, 10, "ch 3")}
	ta := []transcript.Digest{d.digest(a, 1, a1, "a 1"), d.digest(a, 2, a2, "a 2"), d.digest(a, 3, a3, "a 3")}
	tb := []transcript.Digest{d.digest(b, 1, b1, "b 1"), d.digest(b, 2, b2, "b 2")}
	tc := []transcript.Digest{d.digest(c, 1, c1, "c 1")}
	for _, dgs := range [][]transcript.Digest{ch, ta, tb, tc} {
		for _, dg := range dgs {
			d.put(dg)
		}
	}
	newest := func(what string, thread transcript.Sequence, want *transcript.Digest) {
		t.Helper()
		d.wantAfter(what, thread, 0, want)
	}

	// An edit of a.2 (row 4): the channel's digests through 4 and above, and thread a's.
	d.add(edit(a2, agent, "a.2, edited"))
	newest("edit of a.2", 0, &ch[0])
	newest("edit of a.2", a, &ta[0])
	newest("edit of a.2", b, &tb[1])
	newest("edit of a.2", c, &tc[0])
	d.want(0, ch[0].Through, nil) // the kept one is still found below its bound, no other
	// The next generation follows the newest one kept.
	ch2 := d.digest(0, 2, 11, "ch 2 again")
	d.put(ch2)
	ta2 := d.digest(a, 2, a3, "a 2 again")
	d.put(ta2)

	// A redaction of root c (row 6): the channel's digests through 6 and above; thread c's
	// are kept, since a root is pinned in its thread and never folded there.
	d.add(redact(c, op))
	newest("redaction of root c", 0, &ch[0])
	newest("redaction of root c", a, &ta2)
	newest("redaction of root c", c, &tc[0])

	// A redaction of b.2 (row 9): the channel's digests through 9 and above, and thread
	// b's.
	d.put(ch2)
	d.add(redact(b2, agent))
	newest("redaction of b.2", 0, &ch[0])
	newest("redaction of b.2", b, &tb[0])
	newest("redaction of b.2", a, &ta2)

	// An edit of root a (row 1): every digest of the channel; thread a's stay.
	d.add(edit(a, op, "root a, edited"))
	newest("edit of root a", 0, nil)
	newest("edit of root a", a, &ta2)
	newest("edit of root a", b, &tb[0])
	d.put(ch[0])
}

// checkDigestAsideCorrected: an edit or a redaction of an aside deletes no digest and
// supersedes no fold; an edit of a desk row then still deletes them.
func checkDigestAsideCorrected(t reporter, newDesk func() DigestDesk) {
	ctx := t.Context()
	d := newDigestDesk(t, newDesk)
	ana, agent := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	a := d.add(root("root a"))                                                                                    // 1
	x := d.add(transcript.Message{Author: ana, Content: "between us", Audience: []transcript.Author{agent}})      // 2
	y := d.add(transcript.Message{Parent: a, Author: ana, Content: "in a", Audience: []transcript.Author{agent}}) // 3
	a1 := d.add(reply(a, "a.1"))                                                                                  // 4
	d.roots(3)                                                                                                    // 5 to 7
	ch, ta := d.digest(0, 1, 6, "ch 1"), d.digest(a, 1, a1, "a 1")
	d.put(ch)
	d.put(ta)
	a2 := d.add(reply(a, "a.2")) // 8
	read := d.read()             // a fold's read, before the asides' corrections
	for _, m := range []transcript.Message{
		edit(x, ana, "between us, edited"),
		edit(y, ana, "in a, edited"),
		redact(y, ana),
		redact(x, ana),
	} {
		what := describeCorrection(m)
		d.add(m)
		d.wantAfter(what, 0, 0, &ch)
		d.wantAfter(what, a, 0, &ta)
	}
	ch2, ta2 := d.digest(0, 2, 7, "ch 2"), d.digest(a, 2, a2, "a 2")
	for _, dg := range []transcript.Digest{ch2, ta2} {
		if err := d.Log.PutDigest(ctx, dg, read); err != nil {
			t.Errorf("desk %q: PutDigest of %s, read before corrections of asides alone: %v, want it stored", d.Name, describeDigest(dg), err)
		}
	}
	d.want(0, 0, &ch2)
	d.want(a, 0, &ta2)
	d.add(edit(a1, agent, "a.1, edited")) // a desk row: its digests go
	d.wantAfter("edit of a.1", 0, 0, nil)
	d.wantAfter("edit of a.1", a, 0, nil)
}

// checkDigestDeskMadeAnew: a fold that read a desk deleted and made anew while it ran
// stores nothing in the new desk, though its head is as high.
func checkDigestDeskMadeAnew(t reporter, newDesk func() DigestDesk) {
	ctx := t.Context()
	d := newDigestDesk(t, newDesk)
	if d.Renew == nil {
		return
	}
	d.roots(6)
	d.put(d.digest(0, 1, 2, "the old desk's rows 1 to 2"))
	read := d.read() // the fold's read of the old desk
	log, err := d.Renew(ctx)
	if err != nil {
		t.Fatalf("desk %q: deleting it to make it anew: %v", d.Name, err)
	}
	d.Log, d.head = log, 0
	d.want(0, 0, nil)
	d.roots(8)
	stale1 := d.digest(0, 1, 5, "the old desk's rows 1 to 5")
	d.refused(stale1, d.Log.PutDigest(ctx, stale1, read), digest.ErrSuperseded, "generation 1 folded from the desk deleted since its read")
	d.want(0, 0, nil)
	g1 := d.digest(0, 1, 2, "the new desk's rows 1 to 2")
	d.put(g1)
	stale2 := d.digest(0, 2, 5, "the old desk's rows 3 to 5")
	d.refused(stale2, d.Log.PutDigest(ctx, stale2, read), digest.ErrSuperseded, "generation 2 folded from the desk deleted since its read")
	d.want(0, 0, &g1)
	if now := d.read(); now.Desk == read.Desk {
		t.Errorf("desk %q: DigestRead of the desk made anew names the deleted desk (Desk %d)", d.Name, now.Desk)
	}
	g2 := d.digest(0, 2, 5, "the new desk's rows 1 to 5")
	d.put(g2)
	d.want(0, 0, &g2)
}

// checkDigestRace: PutDigests of one generation at once store exactly one.
func checkDigestRace(t reporter, newDesk func() DigestDesk) {
	ctx := t.Context()
	d := newDigestDesk(t, newDesk)
	d.roots(20)
	read := d.read()
	const writers = 4
	for gen := 1; gen <= 4; gen++ {
		for _, thread := range []transcript.Sequence{0, 1} {
			var (
				wg      sync.WaitGroup
				start   = make(chan struct{})
				errs    [writers]error
				offered [writers]transcript.Digest
			)
			for i := range writers {
				offered[i] = d.digest(thread, gen, transcript.Sequence(3*gen+i%2), fmt.Sprintf("generation %d by writer %d", gen, i))
				wg.Go(func() {
					<-start
					errs[i] = d.Log.PutDigest(ctx, offered[i], read)
				})
			}
			close(start)
			wg.Wait()
			var won []int
			for i, err := range errs {
				switch {
				case err == nil:
					won = append(won, i)
				case !errors.Is(err, digest.ErrSuperseded):
					t.Errorf("%s by writer %d: %v, want it stored or digest.ErrSuperseded", describeDigest(offered[i]), i, err)
				}
			}
			if len(won) != 1 {
				t.Fatalf("%d PutDigests of generation %d of %s at once: %d stored (writers %v), want exactly 1", writers, gen, storage.ConversationName(d.conv(thread)), len(won), won)
			}
			d.want(thread, 0, &offered[won[0]])
		}
	}
}

// DigestErasure checks the erasure property with digests on d, a new desk: digests of its
// channel and of a thread hold DigestErasedWords (one of them over 12 KB), folded from a
// reply that holds them; once that reply's redaction has returned, no Digest read, at any
// bound, returns a digest holding them, the digests below the reply are kept, and a fold
// that read the reply before the redaction cannot store what it made of it. A store's own
// test closes the store afterwards and looks for DigestErasedWords in its files.
func DigestErasure(t *testing.T, d DigestDesk) {
	t.Helper()
	digestErasure(t, d)
}

// digestErasure is DigestErasure, reporting to t.
func digestErasure(t reporter, d DigestDesk) {
	t.Helper()
	dd := &digestDesk{t: t, DigestDesk: d}
	ctx := t.Context()
	word, large := DigestErasedWords[0], DigestErasedWords[1]
	filler := strings.Repeat("what the desk said before ", 500) // over 12 KB: overflow pages in SQLite
	a := dd.add(root("plan the deploy"))
	secret := dd.add(reply(a, "the password is "+word+" "+large))
	dd.add(root("deploy done"))
	dd.add(reply(a, "thanks"))
	dd.roots(3)
	read := dd.read()
	ch := []transcript.Digest{
		dd.digest(0, 1, a, "plan the deploy"),
		dd.digest(0, 2, secret+1, "plan the deploy; triage said the password is "+word),
		dd.digest(0, 3, secret+3, filler+large+" "+word+filler),
	}
	th := []transcript.Digest{
		dd.digest(a, 1, secret, "triage: the password is "+word),
		dd.digest(a, 2, secret+2, filler+large+filler),
	}
	for _, dg := range append(ch, th...) {
		dd.put(dg)
	}
	dd.add(redact(secret, transcript.Operator()))
	for _, thread := range []transcript.Sequence{0, a} {
		for below := transcript.Sequence(0); below <= dd.head+1; below++ {
			got, ok, err := d.Log.Digest(ctx, dd.conv(thread), below)
			if err != nil {
				t.Fatalf("Digest of %s below %d after the redaction: %v", storage.ConversationName(dd.conv(thread)), below, err)
			}
			for _, w := range DigestErasedWords {
				if ok && strings.Contains(got.Text, w) {
					t.Errorf("Digest of %s below %d after the redaction = %s, which holds the erased %q", storage.ConversationName(dd.conv(thread)), below, describeDigest(got), w)
				}
			}
		}
	}
	dd.want(0, 0, &ch[0])
	dd.want(a, 0, nil)
	late := dd.digest(0, 2, secret+3, "folded before the redaction: "+word)
	dd.refused(late, d.Log.PutDigest(ctx, late, read), digest.ErrSuperseded, "a fold that read the reply before its redaction")
	dd.want(0, 0, &ch[0])
}

// DigestsGoWithDesk checks, on st, a new store whose logs keep digests, that a desk deleted
// by del leaves no digest of it, whatever del knows of digests: a store's own test passes a
// del that deletes the desk as a process of an older version would, in its own SQL. Desks
// "gone" and "kept" get six rows and digests of their channel and of thread 1; once
// del("gone") has returned and the desk is made anew with four rows, Digest finds none of
// its digests and DigestRead names another desk; "kept" keeps its own.
func DigestsGoWithDesk(t *testing.T, st Store, del func(desk string)) {
	t.Helper()
	ctx := t.Context()
	ana := transcript.Person("ana", "Ana")
	fill := func(desk string, rows int) storage.DigestRead {
		t.Helper()
		for i := range rows {
			m := transcript.Message{Author: ana, Content: fmt.Sprintf("%s row %d", desk, i+1)}
			if i%2 == 1 {
				m.Parent = 1
			}
			mustAppend(t, st, desk, m, transcript.Sequence(i+1))
		}
		dd := &digestDesk{t: t, DigestDesk: DigestDeskOf(t, st, desk), head: transcript.Sequence(rows)}
		return dd.read()
	}
	put := func(desk string, read storage.DigestRead) {
		t.Helper()
		for _, d := range []transcript.Digest{
			{Conversation: conversationIn(desk, 0), Through: 3, Rows: 3, Generation: 1, Digester: "storetest", Text: desk + " rows 1 to 3"},
			{Conversation: conversationIn(desk, 1), Through: 4, Rows: 2, Generation: 1, Digester: "storetest", Text: desk + " replies 2 and 4"},
		} {
			if err := st.Log(desk).(digest.Store).PutDigest(ctx, d, read); err != nil {
				t.Fatalf("PutDigest of %s on desk %q: %v", describeDigest(d), desk, err)
			}
		}
	}
	gone := fill("gone", 6)
	put("gone", gone)
	put("kept", fill("kept", 6))
	del("gone")
	anew := fill("gone", 4)
	if anew.Desk == gone.Desk {
		t.Errorf("DigestRead of desk gone made anew names the deleted desk (Desk %d)", gone.Desk)
	}
	for _, desk := range []string{"gone", "kept"} {
		for _, thread := range []transcript.Sequence{0, 1} {
			c := conversationIn(desk, thread)
			got, ok, err := st.Log(desk).(digest.Store).Digest(ctx, c, 0)
			switch {
			case err != nil:
				t.Errorf("Digest of desk %q's %s: %v", desk, storage.ConversationName(c), err)
			case desk == "gone" && ok:
				t.Errorf("desk gone made anew after its deletion: Digest of %s = %q, want none", storage.ConversationName(c), got.Text)
			case desk == "kept" && !ok:
				t.Errorf("the kept desk: Digest of %s: none, want its digest", storage.ConversationName(c))
			}
		}
	}
}
