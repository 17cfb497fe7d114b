package transcript_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/memlog"
)

// This file holds the digest model test: desks with asides, threads, edits and redactions
// (modelGenCorrected's) are written again row by row into a memlog, folded at random points
// and after their last row, and every digest the log holds must stand for exactly the rows
// the model says, never hold an aside's or an erased word, and a projection with its digest
// must lose no more than FoldAfter qualifying desk rows between the digest and its window.

// digestModelQualifying returns the rows of c's view that qualify for viewer over all of
// rows (the log as it holds them now, ascending Seq), ascending Seq; a thread's root is
// never among them.
func digestModelQualifying(rows []transcript.Message, c transcript.Conversation, viewer transcript.Author) []transcript.Message {
	p := slices.Clone(rows)
	slices.Reverse(p)
	var q []transcript.Message
	if c.Thread == 0 {
		q = modelChannel(p, viewer)
	} else {
		q = modelReplies(p, c.Thread, viewer)
	}
	slices.SortFunc(q, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return q
}

// digestModelFold is what a fold of the rows q, the zero Author's qualifying rows, must do
// above the held digest h: whether it folds, its Through, and the rows it sends.
func digestModelFold(q []transcript.Message, h transcript.Sequence, p digest.Policy) (bool, transcript.Sequence, []transcript.Message) {
	var above []transcript.Message
	for _, m := range q {
		if m.Seq > h {
			above = append(above, m)
		}
	}
	lead := 0
	for lead < len(above) && above[lead].Redacted {
		lead++
	}
	if len(above) < p.KeepLive+p.FoldAfter {
		return false, 0, nil
	}
	k := min(len(above)-p.KeepLive, lead+p.InputLimit)
	if k <= lead {
		return false, 0, nil
	}
	var sent []transcript.Message
	for _, m := range above[:k] {
		if !m.Redacted {
			sent = append(sent, m)
		}
	}
	return true, above[k-1].Seq, sent
}

// digestGenerations returns every digest log holds for c, newest first.
func digestGenerations(t *testing.T, log *memlog.Log, c transcript.Conversation) []transcript.Digest {
	t.Helper()
	var gens []transcript.Digest
	var below transcript.Sequence
	for {
		d, ok, err := log.Digest(context.Background(), c, below)
		if err != nil {
			t.Fatalf("Digest(%+v, %d): %v", c, below, err)
		}
		if !ok {
			return gens
		}
		gens = append(gens, d)
		below = d.Through
	}
}

// digestRecorder is a Digester that keeps every request and answers with the prior's text
// and each message's content, one a line (listing), or as Extractive does.
type digestRecorder struct {
	mu         sync.Mutex
	requests   []digest.Request
	extractive bool
}

func (d *digestRecorder) Digest(ctx context.Context, r digest.Request) (string, error) {
	d.mu.Lock()
	d.requests = append(d.requests, r)
	d.mu.Unlock()
	if d.extractive {
		return digest.Extractive{}.Digest(ctx, r)
	}
	var lines []string
	if r.Prior != nil {
		lines = append(lines, r.Prior.Text)
	}
	for _, m := range r.Messages {
		lines = append(lines, m.Content)
	}
	return strings.Join(lines, "\n"), nil
}

// digestDesk is one desk of the model test being written again.
type digestDesk struct {
	t       *testing.T
	seed    uint64
	log     *memlog.Log
	written []transcript.Message // as their appends returned them
	policy  digest.Policy
	convs   []transcript.Conversation
	rec     *digestRecorder
	secrets []string // the content of every aside: no digest, request or projection's digest holds one
	erased  []string // the content every redaction so far erased
	folds   int
}

func (d *digestDesk) fatalf(format string, args ...any) {
	d.t.Helper()
	var b strings.Builder
	if len(d.written) <= 40 {
		for _, m := range d.log.Messages() {
			fmt.Fprintf(&b, "\n  {Seq: %d, Parent: %d, Corrects: %d, Redacted: %v, Author: %v, Audience: %v, Content: %q}", m.Seq, m.Parent, m.Corrects, m.Redacted, m.Author, m.Audience, m.Content)
		}
	}
	d.t.Fatalf("seed %d, policy %+v, %d rows: %s%s", d.seed, d.policy, len(d.written), fmt.Sprintf(format, args...), b.String())
}

// fold folds every conversation until the policy says no more, checking each fold (with the
// listing digester) against the model.
func (d *digestDesk) fold(ctx context.Context) {
	d.t.Helper()
	for _, c := range d.convs {
		if c.Thread > d.log.Head() {
			continue // no such thread yet
		}
		for range 100 {
			rows := d.log.Messages()
			h, _, _ := d.log.Digest(ctx, c, 0)
			wantFold, wantThrough, wantSent := digestModelFold(digestModelQualifying(rows, c, transcript.Author{}), h.Through, d.policy)
			asked := len(d.rec.requests)
			got, stored, err := digest.Fold(ctx, d.log, d.rec, d.policy, c)
			if err != nil {
				d.fatalf("%+v: Fold: %v", c, err)
			}
			if stored != wantFold {
				d.fatalf("%+v above %d: Fold stored %v, the model says %v", c, h.Through, stored, wantFold)
			}
			if !stored {
				break
			}
			d.folds++
			req := d.rec.requests[asked]
			switch {
			case got.Through != wantThrough || got.Generation != h.Generation+1 || got.Rows != h.Rows+len(wantSent):
				d.fatalf("%+v: folded through %d, generation %d, rows %d; the model says %d, %d, %d",
					c, got.Through, got.Generation, got.Rows, wantThrough, h.Generation+1, h.Rows+len(wantSent))
			case (req.Prior == nil) != (h.Generation == 0) || (req.Prior != nil && *req.Prior != h):
				d.fatalf("%+v: the request's prior %+v, held %+v", c, req.Prior, h)
			case !slices.EqualFunc(req.Messages, wantSent, func(a, b transcript.Message) bool { return a.Seq == b.Seq && a.Content == b.Content }):
				d.fatalf("%+v: sent %v, the model says %v", c, digestSeqs(req.Messages), digestSeqs(wantSent))
			}
		}
	}
}

func digestSeqs(msgs []transcript.Message) []transcript.Sequence {
	out := make([]transcript.Sequence, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}

// check reports every digest the log holds that does not stand for exactly the rows the
// model says, or that holds a secret or an erased word; with listing, each text must be the
// contents of those rows, one a line.
func (d *digestDesk) check(listing bool) {
	d.t.Helper()
	rows := d.log.Messages()
	for _, c := range d.convs {
		q := digestModelQualifying(rows, c, transcript.Author{})
		gens := digestGenerations(d.t, d.log, c)
		for i, g := range gens {
			var stands []string
			inQ := false
			for _, m := range q {
				if m.Seq <= g.Through && !m.Redacted {
					stands = append(stands, m.Content)
				}
				inQ = inQ || m.Seq == g.Through
			}
			switch {
			case g.Generation != len(gens)-i:
				d.fatalf("%+v: generations %+v not 1 to %d", c, gens, len(gens))
			case !inQ:
				d.fatalf("%+v: generation %d through %d, a row that does not qualify", c, g.Generation, g.Through)
			case g.Rows != len(stands):
				d.fatalf("%+v: generation %d through %d stands for %d rows; the model says %d", c, g.Generation, g.Through, g.Rows, len(stands))
			case listing && g.Text != strings.Join(stands, "\n"):
				d.fatalf("%+v: generation %d through %d holds %q; the model says %q", c, g.Generation, g.Through, g.Text, strings.Join(stands, "\n"))
			case utf8.RuneCountInString(g.Text) > d.policy.Budget:
				d.fatalf("%+v: generation %d over the budget", c, g.Generation)
			}
			d.clean(fmt.Sprintf("%+v generation %d", c, g.Generation), g.Text)
		}
	}
	d.rec.mu.Lock()
	defer d.rec.mu.Unlock()
	for _, r := range d.rec.requests {
		for _, m := range r.Messages {
			if m.IsAside() || m.Redacted || m.IsCorrection() || strings.TrimSpace(m.Content) == "" {
				d.fatalf("a request sent row %d: %+v", m.Seq, m)
			}
			for _, s := range d.secrets {
				if strings.Contains(m.Content, s) {
					d.fatalf("a request holds the aside word %s", s)
				}
			}
		}
	}
}

// clean fails when text holds a secret or an erased word.
func (d *digestDesk) clean(what, text string) {
	d.t.Helper()
	for _, s := range d.secrets {
		if strings.Contains(text, s) {
			d.fatalf("%s holds the aside word %s: %q", what, s, text)
		}
	}
	for _, s := range d.erased {
		if strings.Contains(text, s) {
			d.fatalf("%s holds the erased word %s: %q", what, s, text)
		}
	}
}

// checkViews projects every conversation for every viewer with its digest, the window as
// large as KeepLive: the digest is the newest below the window (and below Before), holds no
// secret, and, when it is the newest of all, the desk rows that qualify for the viewer
// between the digest and the window are at most FoldAfter-1, and one more for each window
// message that is not a desk row qualifying for the zero Author (an aside, a first reply
// only the viewer sees, a thread's root). For a viewer who reads desk rows only it is always
// the newest; another's window may reach into the rows of the newest digest (the desk's
// first replies it qualifies otherwise), and then the rows between lie in that digest.
func (d *digestDesk) checkViews(ctx context.Context, r *rand.Rand) {
	d.t.Helper()
	rows := d.log.Messages()
	for _, c := range d.convs {
		q := digestModelQualifying(rows, c, transcript.Author{})
		inQ := make(map[transcript.Sequence]bool, len(q))
		for _, m := range q {
			inQ[m.Seq] = true
		}
		for _, viewer := range modelViewers {
			proj, err := transcript.Project(ctx, d.log, transcript.Query{Conversation: c, Viewer: viewer, Window: d.policy.KeepLive, Digest: true})
			if err != nil {
				d.fatalf("%+v for %v: Project: %v", c, viewer, err)
			}
			var through transcript.Sequence
			if proj.Digest != nil {
				through = proj.Digest.Through
				d.clean(fmt.Sprintf("the digest of %+v for %v", c, viewer), proj.Digest.Text)
			}
			oldest := transcript.Sequence(1<<63 - 1)
			outside := 0
			for _, m := range proj.Messages {
				if m.Seq != c.Thread && m.Seq < oldest {
					oldest = m.Seq
				}
				if !inQ[m.Seq] {
					outside++
				}
			}
			gens := digestGenerations(d.t, d.log, c)
			below := slices.IndexFunc(gens, func(g transcript.Digest) bool { return g.Through < oldest })
			switch {
			case below < 0 && proj.Digest != nil:
				d.fatalf("%+v for %v: digest through %d, not below the window's oldest message %d", c, viewer, through, oldest)
			case below >= 0 && (proj.Digest == nil || *proj.Digest != gens[below]):
				d.fatalf("%+v for %v: digest %+v, want the newest below the window (from %d), %+v", c, viewer, proj.Digest, oldest, gens[below])
			case below > 0 && !viewer.Same(transcript.Author{}) && viewer.Validate() == nil:
				// The viewer's window reaches below the newest digest (rows of the desk's
				// view it does not qualify, first replies it sees otherwise): the rows
				// between are in a digest the window overlaps.
				continue
			case below > 0:
				d.fatalf("%+v for %v, who reads desk rows only: the window (from %d) overlaps the newest digest, through %d", c, viewer, oldest, gens[0].Through)
			}
			lost := 0
			for _, m := range digestModelQualifying(rows, c, viewer) {
				if inQ[m.Seq] && !m.Redacted && m.Seq > through && m.Seq < oldest {
					lost++
				}
			}
			if lost > d.policy.FoldAfter-1+outside {
				d.fatalf("%+v for %v: %d desk rows between the digest (through %d) and the window (from %d), over FoldAfter-1 and %d",
					c, viewer, lost, through, oldest, outside)
			}
			before := transcript.Sequence(1 + r.IntN(len(rows)+1))
			bound, err := transcript.Project(ctx, d.log, transcript.Query{Conversation: c, Viewer: viewer, Before: before, Window: 1 + r.IntN(8), Digest: true})
			if err != nil {
				d.fatalf("%+v for %v before %d: Project: %v", c, viewer, before, err)
			}
			if bound.Digest != nil && bound.Digest.Through >= before {
				d.fatalf("%+v for %v before %d: digest through %d", c, viewer, before, bound.Digest.Through)
			}
		}
	}
}

// TestDigestModel writes random desks again row by row, folding at random points with a
// digester that lists what it folds and with Extractive, and checks after every row that
// each digest stands for exactly the rows the model says (Rows, Through, and with the
// listing digester its text), that no digest, request or projection's digest ever holds an
// aside's word or, once its redaction is appended, an erased one, and after every round of
// folds that a projection with its digest loses no more than FoldAfter-1 desk rows.
func TestDigestModel(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	desks := proptest.Desks(200, 40)
	if testing.Short() {
		desks = 40
	}
	folds := 0
	for i := range desks {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 0xd16e))
		thread := transcript.Sequence(1 + r.IntN(6))
		gen := modelGenCorrected(t, r, 10+r.IntN(70), thread, []float64{0, 0.1, 0.3}[r.IntN(3)], []float64{0, 0.2, 0.5}[r.IntN(3)])
		for _, extractive := range []bool{false, true} {
			d := &digestDesk{t: t, seed: seed, log: memlog.New(), rec: &digestRecorder{extractive: extractive}, policy: digest.Policy{
				KeepLive:   1 + r.IntN(4),
				FoldAfter:  1 + r.IntN(3),
				InputLimit: 1 + r.IntN(5),
				Budget:     64 << 10,
			}}
			if extractive {
				d.policy.Budget = 20 + r.IntN(200)
			}
			d.convs = []transcript.Conversation{{Desk: "model"}}
			for _, m := range gen.written {
				if m.Parent == 0 && !m.IsCorrection() && (m.Seq == thread || r.IntN(4) == 0) {
					d.convs = append(d.convs, transcript.Conversation{Desk: "model", Thread: m.Seq})
				}
				if m.IsAside() && strings.TrimSpace(m.Content) != "" {
					d.secrets = append(d.secrets, m.Content)
				}
			}
			for _, w := range gen.written {
				m := w
				m.Seq = 0
				stored, err := d.log.Append(ctx, m)
				if err != nil || stored.Seq != w.Seq {
					t.Fatalf("seed %d: writing row %d again: %v (seq %d)", seed, w.Seq, err, stored.Seq)
				}
				d.written = append(d.written, stored)
				if w.IsCorrection() && w.Redacted {
					for seq := range erasedTokens(d.written) {
						d.erased = append(d.erased, leakToken(seq))
					}
				}
				d.check(!extractive)
				if r.IntN(4) == 0 {
					d.fold(ctx)
					d.check(!extractive)
				}
			}
			d.fold(ctx)
			d.check(!extractive)
			d.checkViews(ctx, r)
			folds += d.folds
		}
	}
	if folds < desks*4 {
		t.Errorf("%d folds over %d desks, want at least %d", folds, desks, desks*4)
	}
}

// TestDigestReadInProject: Project reads the digest below the window only when asked, from a
// log that keeps digests, and a log's failure to read it fails the projection.
func TestDigestReadInProject(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	for i := range 60 {
		if _, err := log.Append(ctx, transcript.Message{Author: transcript.Person("ana", "Ana"), Content: fmt.Sprintf("row %d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	policy := digest.Policy{KeepLive: 10, FoldAfter: 10, InputLimit: 10}
	for range 6 {
		if _, _, err := digest.Fold(ctx, log, digest.Extractive{}, policy, transcript.Conversation{}); err != nil {
			t.Fatal(err)
		}
	}
	gens := digestGenerations(t, log, transcript.Conversation{})
	if len(gens) != 5 || gens[0].Through != 50 || gens[4].Through != 10 {
		t.Fatalf("generations %+v, want 5, through 50, 40, 30, 20, 10", gens)
	}
	for _, tc := range []struct {
		q    transcript.Query
		want transcript.Sequence // the digest's Through, 0 for none
	}{
		{transcript.Query{Window: 10}, gens[0].Through},
		{transcript.Query{Window: 10, Digest: true}, gens[0].Through},
		{transcript.Query{Window: 20, Digest: true}, gens[1].Through},
		{transcript.Query{Before: gens[1].Through + 1, Window: 1, Digest: true}, gens[2].Through},
	} {
		for _, l := range []transcript.Log{log, &onePassDigests{digestsLog: log}} {
			proj, err := transcript.Project(ctx, l, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case !tc.q.Digest && proj.Digest != nil:
				t.Errorf("%T, %+v: a digest no one asked for", l, tc.q)
			case !tc.q.Digest:
			case proj.Digest == nil || proj.Digest.Through != tc.want:
				t.Errorf("%T, %+v: digest %+v, want the one through %d", l, tc.q, proj.Digest, tc.want)
			}
		}
	}
	failing := failingDigests{log}
	for _, l := range []transcript.Log{failing, &onePassDigests{digestsLog: failing}} {
		if _, err := transcript.Project(ctx, l, transcript.Query{Digest: true}); !errors.Is(err, errDigestRead) {
			t.Errorf("%T: a failing digest read: %v, want it wrapped", l, err)
		} else if re := (*transcript.ReadError)(nil); !errors.As(err, &re) {
			t.Errorf("%T: a failing digest read: %T, want a *ReadError", l, err)
		}
	}
}

var errDigestRead = errors.New("digests unavailable")

type failingDigests struct{ *memlog.Log }

func (failingDigests) Digest(context.Context, transcript.Conversation, transcript.Sequence) (transcript.Digest, bool, error) {
	return transcript.Digest{}, false, errDigestRead
}
