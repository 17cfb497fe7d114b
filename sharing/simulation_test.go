package sharing_test

// A simulation of one shared desk: people and agents append to one memlog concurrently, and
// every agent takes its turns by the protocol of the package doc — Prepare, apply, append its
// reply, NotePresent, commit — crashing now and then between append and commit. At the end
// each agent must have received every message of its conversation, by a model of the
// qualifying rules written for obviousness, exactly once in the turns it committed, and its
// own replies only after a crash. People also edit and redact their rows, and the operator
// redacts anyone's: each agent applies its deltas' corrections to the rows it received, which
// must then be exactly as the log holds them.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// Work per simulation, sized so the final desk stays below ScanLimit rows: then P is the
// whole log for every walk, and which rows qualify never depends on when a walk ran.
const (
	simPeople          = 2
	simRowsPerPerson   = 350
	simRepliesPerAgent = 200
	simCrashPercent    = 20 // chance that an agent with crashes crashes between append and commit
)

// simDesk is the desk's name; simThread is the seeded root one agent works in.
const (
	simDesk   = "eng"
	simThread = transcript.Sequence(5)
)

// simSeedRows open the desk before any agent initializes: fewer qualifying rows than
// SessionWindow in every view, so the first projection shows an agent all of them.
var simSeedRows = []transcript.Message{
	{Author: transcript.Person("ana", "Ana"), Content: "standup in 5"},
	{Parent: 1, Author: transcript.Person("raj", "Raj"), Content: "omw"},
	{Author: transcript.Person("raj", "Raj"), Content: " \n"}, // a blank root still anchors replies
	{Parent: 3, Author: transcript.Person("ana", "Ana"), Content: "did you mean to send that?"},
	{Author: transcript.Operator(), Content: "incident: checkout latency"}, // simThread
	{Parent: 5, Author: transcript.System("alert", "Alerts"), Content: "p99 above 2s"},
	{Parent: 6, Author: transcript.Person("ana", "Ana"), Content: "since 09:12"}, // a reply to a reply
	{Author: transcript.System("workflow", "Workflow"), Content: "deploy 2291 finished"},
	{Parent: 5, Author: transcript.Person("raj", "Raj"), Content: "\t"},
	{Author: transcript.Person("ana", "Ana"), Content: "lunch?"},
}

func TestSimulation(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4, 5, 6, 7, 8} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) { simRun(t, seed) })
	}
}

// simRun runs one simulation. The interleaving is the scheduler's; every random choice of a
// person or an agent comes from its own generator seeded from seed, so an agent's k-th reply
// crashes or not the same way in every run.
func simRun(t *testing.T, seed uint64) {
	ctx := t.Context()
	desk := memlog.New()
	for _, m := range simSeedRows {
		if _, err := desk.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	channel := transcript.Conversation{Desk: simDesk}
	agents := []*simAgent{
		newSimAgent("triage", channel, 0, seed), // never crashes: every row exactly once
		newSimAgent("coder", channel, simCrashPercent, seed),
		newSimAgent("reviewer", transcript.Conversation{Desk: simDesk, Thread: simThread}, simCrashPercent, seed),
	}

	// Every agent initializes (its zero state names no conversation) before anyone writes.
	for _, a := range agents {
		if err := a.turn(ctx, desk, false); err != nil {
			t.Fatalf("%s: %v", a.name, err)
		}
	}

	peopleDone := make(chan struct{})
	var people, busy sync.WaitGroup
	peopleErrs := make([]error, simPeople)
	for i := range simPeople {
		people.Go(func() {
			peopleErrs[i] = simPerson(ctx, desk, i, seed)
		})
	}
	for _, a := range agents {
		busy.Go(func() {
			for {
				select {
				case <-peopleDone:
					return
				default:
				}
				if err := a.turn(ctx, desk, a.replies < simRepliesPerAgent); err != nil {
					a.err = err
					return
				}
				runtime.Gosched()
			}
		})
	}
	people.Wait()
	close(peopleDone)
	busy.Wait()
	for i, err := range peopleErrs {
		if err != nil {
			t.Fatalf("person %d: %v", i, err)
		}
	}

	// Writers have stopped: one last turn each, which always commits, sees the whole desk.
	for _, a := range agents {
		if a.err == nil {
			a.err = a.turn(ctx, desk, false)
		}
	}

	rows := desk.Messages()
	if len(rows) >= transcript.ScanLimit {
		t.Fatalf("the desk has %d rows, not below ScanLimit %d: qualification would depend on timing", len(rows), transcript.ScanLimit)
	}
	for i, m := range rows {
		if m.Seq != transcript.Sequence(i+1) {
			t.Fatalf("row %d has seq %d: memlog sequences are consecutive from 1", i, m.Seq)
		}
	}
	corrected := 0
	defer func() {
		if corrected == 0 && !t.Failed() {
			t.Errorf("no agent applied a correction to a row it received")
		}
	}()
	for _, a := range agents {
		if a.err != nil {
			t.Errorf("%s: %v", a.name, a.err)
			continue
		}
		a.check(t, rows)
		corrected += a.corrected
		t.Logf("%s (%v): %d turns, %d crashes, %d replies, %d rows received, largest delta %d, %d first replies to roots at or below the watermark, %d corrections applied",
			a.name, a.conv, a.turns, a.crashes, a.replies, len(a.received), a.largestDelta, a.lateFirstReplies, a.corrected)
	}
}

// simAgent is one agent and everything it received.
type simAgent struct {
	name         string
	author       transcript.Author
	conv         transcript.Conversation
	crashPercent int
	r            *rand.Rand

	state   sharing.State // the last committed state
	replies int           // replies appended, committed or not
	last    transcript.Sequence
	err     error

	turns, crashes int
	reinits        []sharing.Reason
	received       map[transcript.Sequence]transcript.Message // every row received, as received
	committed      map[transcript.Sequence]int                // deliveries in turns that committed
	crashed        map[transcript.Sequence]int                // deliveries in turns that crashed
	ownCommitted   map[transcript.Sequence]bool               // own replies of committed turns
	ownCrashed     map[transcript.Sequence]bool               // own replies of turns that crashed

	largestDelta, lateFirstReplies int
	corrected                      int // corrections applied to a row received
}

func newSimAgent(name string, c transcript.Conversation, crashPercent int, seed uint64) *simAgent {
	var h uint64
	for _, b := range []byte(name) {
		h = h*31 + uint64(b)
	}
	return &simAgent{
		name:         name,
		author:       transcript.Agent(name, name),
		conv:         c,
		crashPercent: crashPercent,
		r:            rand.New(rand.NewPCG(seed, h)),
		received:     make(map[transcript.Sequence]transcript.Message),
		committed:    make(map[transcript.Sequence]int),
		crashed:      make(map[transcript.Sequence]int),
		ownCommitted: make(map[transcript.Sequence]bool),
		ownCrashed:   make(map[transcript.Sequence]bool),
	}
}

// turn is one turn of the agent. With reply it appends a reply and then crashes or commits;
// without, it always commits.
func (a *simAgent) turn(ctx context.Context, desk *memlog.Log, reply bool) error {
	a.turns++
	old := a.state
	plan, err := sharing.Prepare(ctx, desk, sharing.Query{Desired: a.conv, Current: a.conv, State: old})
	if err != nil {
		return fmt.Errorf("turn %d: Prepare: %w", a.turns, err)
	}
	if plan.Reinitialize != 0 {
		return a.reinitialize(ctx, desk, plan.Reinitialize)
	}
	d := plan.Delta
	if err := simCheckDelta(old, d); err != nil {
		return fmt.Errorf("turn %d: %w", a.turns, err)
	}
	next := d.Next
	crash := false
	if reply {
		m, err := desk.Append(ctx, a.reply(ctx, desk))
		if err != nil {
			return fmt.Errorf("turn %d: append: %w", a.turns, err)
		}
		a.replies++
		a.last = m.Seq
		if err := next.NotePresent(m.Seq); err != nil {
			return fmt.Errorf("turn %d: NotePresent(%d) on %+v: %w", a.turns, m.Seq, next, err)
		}
		crash = a.r.IntN(100) < a.crashPercent
		if crash {
			a.ownCrashed[m.Seq] = true
		} else {
			a.ownCommitted[m.Seq] = true
		}
	}
	if err := a.receive(d.Messages, old.Watermark, crash); err != nil {
		return fmt.Errorf("turn %d: %w", a.turns, err)
	}
	a.apply(d.Corrections)
	if crash {
		a.crashes++ // the committed state stays behind: the next turn starts from old
		return nil
	}
	a.state = next
	return nil
}

// reinitialize shows the agent a full projection and commits the state it seeds.
func (a *simAgent) reinitialize(ctx context.Context, desk *memlog.Log, why sharing.Reason) error {
	a.reinits = append(a.reinits, why)
	proj, err := transcript.Project(ctx, desk, transcript.Query{Conversation: a.conv})
	if err != nil {
		return fmt.Errorf("turn %d: reinitialize (%v): Project: %w", a.turns, why, err)
	}
	if proj.Partial || len(proj.Messages) >= transcript.SessionWindow {
		return fmt.Errorf("turn %d: reinitialize (%v): %d messages, partial %v: the window may have cut qualifying rows", a.turns, why, len(proj.Messages), proj.Partial)
	}
	if err := a.receive(proj.Messages, 0, false); err != nil {
		return fmt.Errorf("turn %d: reinitialize (%v): %w", a.turns, why, err)
	}
	a.state = sharing.Initialized(a.conv, proj.Head)
	return nil
}

// receive records the messages of one turn. An own reply may only come back after the turn
// that appended it crashed.
func (a *simAgent) receive(msgs []transcript.Message, watermark transcript.Sequence, crash bool) error {
	a.largestDelta = max(a.largestDelta, len(msgs))
	for _, m := range msgs {
		if m.Author.Same(a.author) && !a.ownCrashed[m.Seq] {
			return fmt.Errorf("received its own reply %d, appended in a turn that committed (or never appended)", m.Seq)
		}
		if a.conv.IsChannel() && m.Parent != 0 && m.Parent <= watermark {
			a.lateFirstReplies++
		}
		a.received[m.Seq] = m
		if crash {
			a.crashed[m.Seq]++
		} else {
			a.committed[m.Seq]++
		}
	}
	return nil
}

// apply applies a delta's corrections to the rows the agent received, as Delta.Corrections
// says: a row takes a correction newer than its Revised.
func (a *simAgent) apply(corrections []transcript.Message) {
	for _, c := range corrections {
		if m, ok := a.received[c.Corrects]; ok && c.Seq > m.Revised {
			m.Content, m.Redacted, m.Revised = c.Content, c.Redacted, c.Seq
			a.received[c.Corrects] = m
			a.corrected++
		}
	}
}

// reply returns the agent's next reply. A channel agent posts roots and replies to recent
// roots; a thread agent answers its root, now and then a reply of its own.
func (a *simAgent) reply(ctx context.Context, desk *memlog.Log) transcript.Message {
	m := transcript.Message{Author: a.author, Content: fmt.Sprintf("%s, reply %d", a.name, a.replies+1)}
	switch {
	case !a.conv.IsChannel():
		m.Parent = a.conv.Thread
		if a.last != 0 && a.r.IntN(100) < 15 {
			m.Parent = a.last
		}
	case a.r.IntN(100) < 30:
		m.Parent = simRecentRoot(ctx, desk, a.r, 200)
	}
	return m
}

// simCheckDelta checks a delta against the state it was prepared from: chronological, each
// row in (M, Next.Watermark] and not already present, and Next as §6 says.
func simCheckDelta(old sharing.State, d sharing.Delta) error {
	next := d.Next
	if next.Conversation != old.Conversation || next.Watermark < old.Watermark {
		return fmt.Errorf("next state %+v after %+v", next, old)
	}
	for i, m := range d.Messages {
		switch {
		case i > 0 && m.Seq <= d.Messages[i-1].Seq:
			return fmt.Errorf("delta not strictly ascending at %d", m.Seq)
		case m.Seq <= old.Watermark || m.Seq > next.Watermark:
			return fmt.Errorf("delta row %d outside (%d, %d]", m.Seq, old.Watermark, next.Watermark)
		}
		if slices.Contains(old.Present, m.Seq) {
			return fmt.Errorf("delta row %d was already present in %+v", m.Seq, old)
		}
	}
	var want []transcript.Sequence
	for _, p := range old.Present {
		if p > next.Watermark {
			want = append(want, p)
		}
	}
	if !slices.Equal(next.Present, want) {
		return fmt.Errorf("next present %v, want %v (old %+v)", next.Present, want, old)
	}
	return nil
}

// check compares what the agent received with the rows that qualify for its conversation in
// the final log.
func (a *simAgent) check(t *testing.T, rows []transcript.Message) {
	t.Helper()
	if len(a.reinits) != 1 || a.reinits[0] != sharing.ConversationChanged {
		t.Errorf("%s: reinitializations %v, want only the first turn's conversation_changed", a.name, a.reinits)
	}
	if a.crashPercent == 0 && (a.crashes != 0 || len(a.ownCrashed) != 0) {
		t.Fatalf("%s: %d crashes with crashes off", a.name, a.crashes)
	}
	qualifying := simQualifying(rows, a.conv)
	bad := 0
	report := func(format string, args ...any) {
		if bad++; bad <= 10 {
			t.Errorf("%s: "+format, append([]any{a.name}, args...)...)
		}
	}
	for _, m := range rows {
		seq := m.Seq
		got, ok := a.received[seq]
		switch {
		case ok && !gocmp.Equal(got, m):
			report("received %+v, the log holds %+v", got, m)
		case ok && !qualifying[seq]:
			report("received %d (%+v), which does not qualify for %v", seq, m, a.conv)
		case a.ownCommitted[seq] && ok:
			report("received its own reply %d of a committed turn", seq)
		case a.ownCommitted[seq]:
			// noted present: the agent wrote it and never needs it back
		case qualifying[seq] && a.committed[seq] != 1:
			report("qualifying row %d received %d times in committed turns (and %d in crashed ones), want exactly 1",
				seq, a.committed[seq], a.crashed[seq])
		case a.crashes == 0 && a.crashed[seq] != 0:
			report("row %d delivered in a crashed turn, but the agent never crashed", seq)
		}
	}
	if bad > 10 {
		t.Errorf("%s: ... %d problems in all", a.name, bad)
	}
}

// simQualifying returns the rows of the whole log (rows[i].Seq == i+1) that qualify for c,
// straight from the definitions: in a thread, the root and its direct replies; in the
// channel, roots and each root's oldest direct reply; never a blank row.
func simQualifying(rows []transcript.Message, c transcript.Conversation) map[transcript.Sequence]bool {
	q := make(map[transcript.Sequence]bool)
	answered := make(map[transcript.Sequence]bool) // roots whose first reply is known
	for _, m := range rows {
		if m.Blank() {
			continue
		}
		switch {
		case !c.IsChannel():
			if m.Seq == c.Thread || m.Parent == c.Thread {
				q[m.Seq] = true
			}
		case m.Parent == 0:
			q[m.Seq] = true
		case rows[m.Parent-1].Parent == 0 && !answered[m.Parent]:
			answered[m.Parent] = true
			q[m.Seq] = true
		}
	}
	return q
}

// simPerson appends simRowsPerPerson rows as person i: roots, replies to recent roots, to
// replies, into the seeded thread, blank rows, system notices, edits of its own recent rows,
// and redactions of recent rows, its own or (as the operator) anyone's.
func simPerson(ctx context.Context, desk *memlog.Log, i int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, uint64(1000+i)))
	me := transcript.Person(fmt.Sprint("person", i), fmt.Sprint("Person ", i))
	var mine []transcript.Sequence // its rows that are neither blank nor corrections
	for n := range simRowsPerPerson {
		m := transcript.Message{Author: me, Content: fmt.Sprintf("person %d, row %d", i, n)}
		switch k := r.IntN(100); {
		case k < 6 && len(mine) > 0: // an edit of one of its recent rows
			m.Corrects = mine[len(mine)-1-r.IntN(min(len(mine), 10))]
			m.Content = fmt.Sprintf("person %d, row %d, an edit", i, n)
		case k < 8 && len(mine) > 0:
			m.Corrects, m.Content, m.Redacted = mine[len(mine)-1-r.IntN(min(len(mine), 10))], "", true
		case k < 10:
			target, ok := simRedactable(ctx, desk, r)
			if !ok {
				continue
			}
			m = transcript.Message{Author: transcript.Operator(), Corrects: target, Redacted: true}
		case k < 30: // a root
		case k < 60:
			m.Parent = simRecentRoot(ctx, desk, r, 40)
		case k < 70:
			m.Parent = simRecentRoot(ctx, desk, r, 400)
		case k < 80:
			m.Parent = simThread
		case k < 87:
			m.Parent = desk.Head() - transcript.Sequence(r.IntN(10)) // often a reply to a reply
		case k < 95:
			m.Content = []string{"", " ", "\n\t"}[r.IntN(3)]
			if r.IntN(2) == 0 {
				m.Parent = simRecentRoot(ctx, desk, r, 40)
			}
		default:
			m.Author = transcript.System("workflow", "Workflow")
		}
		if m.Parent != 0 {
			m.Parent = simTarget(ctx, desk, m.Parent) // no row replies to a correction
		}
		stored, err := desk.Append(ctx, m)
		switch {
		case m.IsCorrection() && errors.Is(err, transcript.ErrRedacted):
			continue // redacted since it was picked, by the operator
		case err != nil:
			return err
		case !stored.IsCorrection() && !stored.Blank() && !stored.Author.Same(transcript.System("workflow", "")):
			mine = append(mine, stored.Seq)
		}
		runtime.Gosched()
	}
	return nil
}

// simTarget returns seq, or the row it corrects when seq is a correction.
func simTarget(ctx context.Context, desk *memlog.Log, seq transcript.Sequence) transcript.Sequence {
	pg, err := desk.ReadBefore(ctx, seq+1, 1)
	if err != nil || len(pg.Messages) == 0 || pg.Messages[0].Seq != seq || !pg.Messages[0].IsCorrection() {
		return seq
	}
	return pg.Messages[0].Corrects
}

// simRedactable picks one of the newest 40 rows that the operator may redact: no correction,
// not blank, not redacted.
func simRedactable(ctx context.Context, desk *memlog.Log, r *rand.Rand) (transcript.Sequence, bool) {
	head := desk.Head()
	seq := head - transcript.Sequence(r.IntN(min(int(head), 40)))
	pg, err := desk.ReadBefore(ctx, seq+1, 1)
	if err != nil || len(pg.Messages) == 0 {
		return 0, false
	}
	m := pg.Messages[0]
	return m.Seq, !m.IsCorrection() && !m.Blank() && !m.Redacted
}

// simRecentRoot picks one of the newest within rows and returns it if it is a root, else its
// parent (a root, or a reply when the pick replied to a reply), or for a correction its
// target.
func simRecentRoot(ctx context.Context, desk *memlog.Log, r *rand.Rand, within int) transcript.Sequence {
	head := desk.Head()
	seq := head - transcript.Sequence(r.IntN(min(int(head), within)))
	pg, err := desk.ReadBefore(ctx, seq+1, 1)
	if err != nil || len(pg.Messages) == 0 {
		return 0
	}
	switch m := pg.Messages[0]; {
	case m.IsCorrection():
		return m.Corrects // no row replies to a correction
	case m.Parent != 0:
		return m.Parent
	}
	return seq
}
