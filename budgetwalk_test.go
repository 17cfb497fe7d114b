package transcript_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// budgetSizes gives every non-blank row of rows a content of a random size, from nothing
// past its name to many times the others, so that a budget falls anywhere among them.
func budgetSizes(r *rand.Rand, rows []transcript.Message) (total int) {
	for i := range rows {
		m := &rows[i]
		if m.Blank() {
			continue
		}
		var n int
		switch r.IntN(6) {
		case 0:
			n = 0
		case 1:
			n = 200 + r.IntN(2000)
		default:
			n = r.IntN(60)
		}
		m.Content = fmt.Sprintf("m%d ", m.Seq) + strings.Repeat("x", n)
		total += len(m.Content)
	}
	return total
}

// budgetShortPages returns a log over rows whose pages come back short now and then, the
// same way for the same seed.
func budgetShortPages(t *testing.T, log transcript.Log, seed uint64) transcript.Log {
	t.Helper()
	return &modelRecorder{log: log, short: rand.New(rand.NewPCG(seed, 7))}
}

// TestBudgetedWalkIsTheCut: over random desks with random content sizes, a Project with
// MaxBytes is exactly the Project without it cut by Projection.WithinBytes, and a Prepare
// with MaxBytes exactly the Prepare without it cut by Delta.WithinBytes from its state —
// messages, elisions, Dropped, the next state, Scanned and Reads — whatever the budget: the
// walk lets go only of what the cut drops. With ExceptAuthor, the Prepare is the one
// without it less that author's messages, then cut the same way.
func TestBudgetedWalkIsTheCut(t *testing.T) {
	t.Parallel()
	desks := proptest.Desks(1500, 300)
	if testing.Short() {
		desks = 300
	}
	ctx := context.Background()
	for i := range desks {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 0xb0d9e7))
		d := modelGenDesk(r, modelShape{
			rows:     r.IntN(400),
			rootP:    r.Float64(),
			blankP:   r.Float64() * 0.2,
			gapP:     r.Float64() * 0.1,
			danglesP: r.Float64() * 0.1,
			asideP:   r.Float64() * 0.5,
		})
		total := budgetSizes(r, d.rows)
		log, err := memlog.From(d.rows)
		if err != nil {
			t.Fatal(err)
		}
		budget := 1 + r.IntN(max(total/4, 1)+200)
		short := r.IntN(2) == 0
		logFor := func() transcript.Log {
			if short {
				return budgetShortPages(t, log, seed)
			}
			return log
		}

		q := modelGenQuery(r, d)
		whole, err := transcript.Project(ctx, logFor(), q)
		if err != nil {
			t.Fatalf("seed %d: Project: %v", seed, err)
		}
		want := whole.WithinBytes(q.Conversation.Thread, budget)
		q.MaxBytes = budget
		got, err := transcript.Project(ctx, logFor(), q)
		if err != nil {
			t.Fatalf("seed %d: Project with MaxBytes %d: %v", seed, budget, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("seed %d, query %+v (short pages %v): Project with MaxBytes against WithinBytes (-cut +walk):\n%s", seed, q, short, diff)
		}

		c := q.Conversation
		if r.IntN(3) == 0 {
			c.Thread = 0
		}
		state := sharing.Initialized(c, d.head()*transcript.Sequence(r.IntN(4))/4)
		for range r.IntN(8) {
			_ = state.NotePresent(state.Watermark + 1 + transcript.Sequence(r.IntN(int(d.head())+2))) // a full set refuses: fine
		}
		var before transcript.Sequence
		if r.IntN(2) == 0 && d.head() > state.Watermark {
			before = state.Watermark + 1 + transcript.Sequence(r.IntN(int(d.head()-state.Watermark)))
		}
		sq := sharing.Query{Desired: c, Current: c, State: state, Before: before, Viewer: q.Viewer}
		plan, errWhole := sharing.Prepare(ctx, logFor(), sq)
		var except transcript.Author // half the time one author's messages, often the viewer's
		switch r.IntN(4) {
		case 0:
			except = q.Viewer
		case 1:
			except = modelViewers[r.IntN(len(modelViewers))]
		}
		if plan.Reinitialize == 0 && errWhole == nil {
			if except != (transcript.Author{}) {
				plan.Delta.Messages = slices.DeleteFunc(plan.Delta.Messages, func(m transcript.Message) bool { return m.Author.Same(except) })
			}
			plan.Delta = plan.Delta.WithinBytes(budget, state)
		}
		sq.ExceptAuthor = except
		if except != (transcript.Author{}) {
			unbudgeted, err := sharing.Prepare(ctx, logFor(), sq)
			if err == nil && unbudgeted.Reinitialize == 0 {
				unbudgeted.Delta = unbudgeted.Delta.WithinBytes(budget, state)
			}
			if diff := cmp.Diff(plan, unbudgeted); err == nil && diff != "" {
				t.Fatalf("seed %d, query %+v (short pages %v): Prepare with ExceptAuthor against the delta less its messages, both cut (-less +except):\n%s", seed, sq, short, diff)
			}
		}
		sq.MaxBytes = budget
		gotPlan, err := sharing.Prepare(ctx, logFor(), sq)
		if (err == nil) != (errWhole == nil) {
			t.Fatalf("seed %d: Prepare: %v without a budget, %v with one", seed, errWhole, err)
		}
		if diff := cmp.Diff(plan, gotPlan); diff != "" {
			t.Fatalf("seed %d, query %+v (short pages %v): Prepare with MaxBytes against Delta.WithinBytes (-cut +walk):\n%s", seed, sq, short, diff)
		}
	}
}

// TestBudgetedWalkRereads: a walk with a budget lets go of the content of corrections and
// first replies whose place in the answer it does not know yet, the least likely kept first,
// and reads again those the answer then carries: the answer is still exactly the cut of the
// one without a budget. On both desks the rows that take the budget while pending turn out
// not to qualify: replies to replies whose parents lie below (for a view), and the oldest
// corrections, of replies to replies (for a delta).
func TestBudgetedWalkRereads(t *testing.T) {
	ctx := context.Background()
	const (
		n        = 24
		rowBytes = 24 << 10
		budget   = 200 << 10
	)
	bob := transcript.Person("bob", "")
	alice, carol := transcript.Person("alice", ""), transcript.Person("carol", "")
	large := strings.Repeat("x", rowBytes)
	channel := transcript.Conversation{Desk: "eng"}
	appendRow := func(desk *memlog.Log, m transcript.Message) transcript.Sequence {
		t.Helper()
		m, err := desk.Append(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return m.Seq
	}
	short := func(desk *memlog.Log) *rereadLog { return &rereadLog{log: desk, pageBytes: 100 << 10} }

	// The view: a root with n small replies, n roots each with a large first reply, then a
	// large reply to each of the small replies, newest.
	view := memlog.New()
	a := appendRow(view, transcript.Message{Author: carol, Content: "a"})
	var small []transcript.Sequence
	for range n {
		small = append(small, appendRow(view, transcript.Message{Author: alice, Parent: a, Content: "p"}))
	}
	var roots []transcript.Sequence
	for range n {
		roots = append(roots, appendRow(view, transcript.Message{Author: carol, Content: "root"}))
	}
	for _, r := range roots {
		appendRow(view, transcript.Message{Author: alice, Parent: r, Content: large})
	}
	for _, p := range small {
		appendRow(view, transcript.Message{Author: alice, Parent: p, Content: large})
	}
	q := transcript.Query{Conversation: channel, Viewer: bob, Window: transcript.ScanLimit}
	whole, err := transcript.Project(ctx, short(view), q)
	if err != nil {
		t.Fatal(err)
	}
	q.MaxBytes = budget
	log := short(view)
	got, err := transcript.Project(ctx, log, q)
	if err != nil {
		t.Fatal(err)
	}
	want := whole.WithinBytes(0, budget)
	want.Reads = got.Reads // compared below
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Project with MaxBytes against WithinBytes (-cut +walk):\n%s", diff)
	}
	if log.rereads == 0 || got.Reads != whole.Reads+log.rereads {
		t.Errorf("Project read %d rows again, Reads %d against %d without a budget", log.rereads, got.Reads, whole.Reads)
	}
	// A read again that finds another row at the Seq (a desk deleted and made anew under its
	// name) is refused, never served in the held row's place.
	swapped := short(view)
	swapped.swap = true
	if _, err := transcript.Project(ctx, swapped, q); !errors.Is(err, transcript.ErrInvalidRow) || swapped.rereads == 0 {
		t.Errorf("Project over a log whose rows change authors when read again: %v after %d reads again, want ErrInvalidRow", err, swapped.rereads)
	}

	// The delta: n roots each with a large first reply and a reply to it, then an edit of
	// each reply to a reply, then an edit of each first reply, all above the watermark.
	delta := memlog.New()
	var firsts, seconds []transcript.Sequence
	for range n {
		r := appendRow(delta, transcript.Message{Author: carol, Content: "root"})
		f := appendRow(delta, transcript.Message{Author: alice, Parent: r, Content: large})
		firsts = append(firsts, f)
		seconds = append(seconds, appendRow(delta, transcript.Message{Author: alice, Parent: f, Content: large}))
	}
	watermark := seconds[len(seconds)-1]
	for _, seq := range slices.Concat(seconds, firsts) {
		appendRow(delta, transcript.Message{Author: alice, Corrects: seq, Content: large + "!"})
	}
	state := sharing.Initialized(channel, watermark)
	sq := sharing.Query{Desired: channel, Current: channel, Viewer: bob, State: state}
	plan, err := sharing.Prepare(ctx, short(delta), sq)
	if err != nil {
		t.Fatal(err)
	}
	sq.MaxBytes = budget
	log = short(delta)
	cut, err := sharing.Prepare(ctx, log, sq)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(plan.Delta.WithinBytes(budget, state), cut.Delta); diff != "" {
		t.Errorf("Prepare with MaxBytes against Delta.WithinBytes (-cut +walk):\n%s", diff)
	}
	if len(cut.Delta.Corrections) == 0 || log.rereads == 0 {
		t.Errorf("Prepare: %d corrections, %d rows read again; want some of each", len(cut.Delta.Corrections), log.rereads)
	}
}

// rereadLog ends pages early at pageBytes of content, as the stores do at PageBytes, and
// counts the reads of limit 1 that ask for a row it returned before; with swap, such a read
// returns another row at that Seq.
type rereadLog struct {
	log       transcript.Log
	pageBytes int
	seen      map[transcript.Sequence]bool
	rereads   int
	swap      bool // a row read again comes back by another author
}

func (l *rereadLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	pg, err := l.log.ReadBefore(ctx, before, limit)
	if err != nil {
		return pg, err
	}
	if l.seen == nil {
		l.seen = make(map[transcript.Sequence]bool)
	}
	if limit == 1 && before != 0 && l.seen[before-1] {
		l.rereads++
		if l.swap && len(pg.Messages) == 1 {
			pg.Messages = []transcript.Message{pg.Messages[0]}
			pg.Messages[0].Author = transcript.Person("mallory", "")
		}
	}
	bytes := 0
	for i := range pg.Messages {
		l.seen[pg.Messages[i].Seq] = true
		if bytes += len(pg.Messages[i].Content); bytes >= l.pageBytes && i+1 < len(pg.Messages) {
			pg.Messages, pg.Next = pg.Messages[:i+1], pg.Messages[i].Seq
			break
		}
	}
	return pg, nil
}
