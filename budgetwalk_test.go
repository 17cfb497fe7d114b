package transcript_test

import (
	"context"
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
