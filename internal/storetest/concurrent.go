package storetest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// The shape of checkConcurrentSharing. Every desk stays far below transcript.ScanLimit rows,
// so no agent ever has to reinitialize: each delta starts at the agent's watermark.
const (
	sharingDesks   = 4
	sharingWriters = 8  // writer w appends to desk w % sharingDesks
	sharingAppends = 60 // rows per writer
	sharingThread  = 1  // every desk's first row is the root of the thread agents follow
)

// agent is one reader of checkConcurrentSharing: its conversation, its committed state and
// how many times it accepted each row.
type agent struct {
	conv     transcript.Conversation
	state    sharing.State
	accepted map[transcript.Sequence]int
	prepares int
}

// checkConcurrentSharing: 8 writers append to 4 desks while, for every desk, a channel agent
// and a thread agent loop sharing.Prepare → accept the delta → commit its Next state. Once
// the writers are done, each agent prepares once more; by then it must have accepted every
// qualifying row of its conversation exactly once.
func checkConcurrentSharing(t *testing.T, st Store) { ConcurrentSharing(t, st, st, nil) }

// Logs is where ConcurrentSharing's agents read: a Store, or a read copy of one.
type Logs interface {
	// Log returns desk's transcript.Log.
	Log(desk string) transcript.Log
}

// ConcurrentSharing is the ConcurrentSharing check of Run with the writers appending to st
// and the agents reading through readers, which may be a copy of st that replays its rows
// some time after they are appended (a PostgreSQL standby): in any order, late, but never a
// row without the rows below it. Once the writers are done, caughtUp, when not nil, returns
// once readers shows every row appended so far; then each agent prepares once more, and
// must by then have accepted every qualifying row of its conversation exactly once. The
// desks are read back from st for the check.
func ConcurrentSharing(t *testing.T, st Store, readers Logs, caughtUp func(t *testing.T)) {
	t.Helper()
	ctx := t.Context()
	desks := make([]string, sharingDesks)
	for i := range desks {
		desks[i] = fmt.Sprintf("desk-%d", i)
		mustAppend(t, st, desks[i], root("the thread every thread agent follows"), sharingThread)
	}

	var agents []*agent
	for _, desk := range desks {
		for _, thread := range []transcript.Sequence{0, sharingThread} {
			conv := transcript.Conversation{Desk: desk, Thread: thread}
			agents = append(agents, &agent{conv: conv, state: sharing.Initialized(conv, 0), accepted: make(map[transcript.Sequence]int)})
		}
	}

	written := make([][]transcript.Message, sharingWriters) // what each writer's Appends returned
	done := make(chan struct{})
	var writers, agentsDone sync.WaitGroup
	errs := make(chan error, sharingWriters+len(agents))
	for _, a := range agents {
		agentsDone.Go(func() {
			if err := a.run(ctx, readers, done); err != nil {
				errs <- err
			}
		})
	}
	for w := range sharingWriters {
		writers.Go(func() {
			rows, err := write(ctx, st, desks[w%sharingDesks], w)
			written[w] = rows
			if err != nil {
				errs <- err
			}
		})
	}
	writers.Wait()
	if caughtUp != nil {
		caughtUp(t)
	}
	close(done)
	agentsDone.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}

	for i, desk := range desks {
		rows := mustReadAll(t, st, desk)
		checkDeskWritten(t, desk, rows, written, i)
		for _, a := range agents {
			if a.conv.Desk == desk {
				a.check(t, rows)
			}
		}
	}
}

// write appends sharingAppends rows to desk as writer w and returns what Append returned: a
// seeded mix of roots, blank roots, replies to the thread root, to the writer's own roots and
// to its own replies, some blank.
func write(ctx context.Context, st Store, desk string, w int) ([]transcript.Message, error) {
	rng := rand.New(rand.NewPCG(uint64(w), 0x5ba7e))
	author := transcript.Agent(fmt.Sprintf("writer-%d", w), fmt.Sprintf("Writer %d", w))
	roots := []transcript.Sequence{sharingThread}
	var replies, rows []transcript.Message
	for i := range sharingAppends {
		m := transcript.Message{Author: author, Content: fmt.Sprintf("writer %d row %d", w, i)}
		switch p := rng.IntN(100); {
		case p < 30:
		case p < 35:
			m.Content = " \t"
		case p < 60:
			m.Parent = sharingThread
		case p < 85:
			m.Parent = roots[rng.IntN(len(roots))]
		case len(replies) > 0:
			m.Parent = replies[rng.IntN(len(replies))].Seq
		}
		if m.Parent != 0 && rng.IntN(6) == 0 {
			m.Content = "\n"
		}
		got, err := st.Append(ctx, desk, m)
		if err != nil {
			return rows, fmt.Errorf("writer %d: Append to %q of row %d: %w", w, desk, i, err)
		}
		rows = append(rows, got)
		if got.Parent == 0 {
			roots = append(roots, got.Seq)
		} else {
			replies = append(replies, got)
		}
		runtime.Gosched()
	}
	return rows, nil
}

// run loops Prepare → accept → commit until done is closed, then prepares once more, so
// that its last delta starts after every Append returned.
func (a *agent) run(ctx context.Context, st Logs, done <-chan struct{}) error {
	log := st.Log(a.conv.Desk)
	for last := false; !last; {
		select {
		case <-done:
			last = true
		default:
		}
		plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: a.conv, Current: a.conv, State: a.state})
		if err != nil {
			return fmt.Errorf("agent on %+v, prepare %d: %w", a.conv, a.prepares+1, err)
		}
		a.prepares++
		if plan.Reinitialize != 0 {
			return fmt.Errorf("agent on %+v, prepare %d from watermark %d: reinitialize (%v), want a delta: desks stay below ScanLimit",
				a.conv, a.prepares, a.state.Watermark, plan.Reinitialize)
		}
		for _, m := range plan.Delta.Messages {
			if m.Seq <= a.state.Watermark {
				return fmt.Errorf("agent on %+v: delta from watermark %d holds row %d", a.conv, a.state.Watermark, m.Seq)
			}
			a.accepted[m.Seq]++
		}
		if plan.Delta.Next.Watermark < a.state.Watermark {
			return fmt.Errorf("agent on %+v: next watermark %d below %d", a.conv, plan.Delta.Next.Watermark, a.state.Watermark)
		}
		a.state = plan.Delta.Next // the turn is "durable" at once: commit
		runtime.Gosched()
	}
	return nil
}

// check compares what the agent accepted with the rows that qualify for its conversation
// in the final desk, and its projection with the same rows.
func (a *agent) check(t *testing.T, rows []transcript.Message) {
	t.Helper()
	want := qualifying(rows, a.conv)
	var missing, extra, twice []transcript.Sequence
	for seq := range want {
		if a.accepted[seq] == 0 {
			missing = append(missing, seq)
		}
	}
	for seq, n := range a.accepted {
		switch {
		case !want[seq]:
			extra = append(extra, seq)
		case n > 1:
			twice = append(twice, seq)
		}
	}
	if len(missing)+len(extra)+len(twice) > 0 {
		slices.Sort(missing)
		slices.Sort(extra)
		slices.Sort(twice)
		t.Errorf("agent on %+v after %d prepares: %d rows qualify; never accepted %v; accepted but not qualifying %v; accepted more than once %v",
			a.conv, a.prepares, len(want), missing, extra, twice)
	}
	if last := rows[len(rows)-1].Seq; a.state.Watermark != last {
		t.Errorf("agent on %+v: final watermark %d, want the desk's head %d", a.conv, a.state.Watermark, last)
	}
	// The model agrees with Project over the whole desk.
	log, err := memlog.From(rows)
	if err != nil {
		t.Fatalf("memlog.From: %v", err)
	}
	proj, err := transcript.Project(t.Context(), log, transcript.Query{Conversation: a.conv, Window: len(rows)})
	if err != nil {
		t.Fatalf("Project: %v", err)
	}
	if len(proj.Messages) != len(want) {
		t.Errorf("agent on %+v: Project returns %d rows, the model %d", a.conv, len(proj.Messages), len(want))
	}
	for _, m := range proj.Messages {
		if !want[m.Seq] {
			t.Errorf("agent on %+v: Project returns row %d, which the model does not qualify", a.conv, m.Seq)
		}
	}
}

// checkDeskWritten checks that desk, written by the writers w with w % sharingDesks == i,
// holds exactly the thread root and the rows their Appends returned, numbered 1 to n.
func checkDeskWritten(t *testing.T, desk string, rows []transcript.Message, written [][]transcript.Message, i int) {
	t.Helper()
	want := []transcript.Message{rows[0]}
	for w := i; w < sharingWriters; w += sharingDesks {
		want = append(want, written[w]...)
	}
	slices.SortFunc(want, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	for j, m := range want {
		if m.Seq != transcript.Sequence(j+1) {
			t.Fatalf("desk %q: Appends returned seq %d as the %d-th row, want consecutive sequences from 1", desk, m.Seq, j+1)
		}
	}
	checkRows(t, fmt.Sprintf("desk %q after the writers", desk), rows, want)
}
