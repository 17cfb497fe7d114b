package server_test

import (
	stdcmp "cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// The model of what a live stream must deliver, computed from a desk's final rows with the
// definitions of a view (what qualifies, and an aside for its readers only), independently
// of the library's walk: the load and fault tests compare every stream's events with it. It holds while the desk has fewer than
// transcript.ScanLimit rows, so that every walk's P is the whole log below its bound.

// deskRows reads every row of desk, ascending.
func deskRows(ctx context.Context, log transcript.Log) ([]transcript.Message, error) {
	var desc []transcript.Message
	var before transcript.Sequence
	for {
		pg, err := log.ReadBefore(ctx, before, transcript.PageSize)
		if err != nil {
			return nil, err
		}
		desc = append(desc, pg.Messages...)
		if pg.Next == 0 {
			break
		}
		before = pg.Next
	}
	slices.Reverse(desc)
	return desc, nil
}

// viewModel is what one viewer's view of one conversation holds over a desk's whole log:
// which rows qualify (messages) and which are elided.
type viewModel struct {
	qualifies map[transcript.Sequence]bool
	elided    map[transcript.Sequence]bool
}

// modelView computes the view of viewer over rows (ascending, the desk's whole log) for the
// channel (thread 0) or the thread of root thread.
//
// Channel: every non-blank root viewer may read, and each root's first reply: the oldest
// non-blank direct reply viewer may read (the root itself need not be readable: a row
// viewer may not read still anchors replies). Thread: the root and its direct replies,
// non-blank and readable. Elided: the non-blank rows at the view's level (roots; or the
// root and its direct replies) that viewer may not read.
func modelView(rows []transcript.Message, viewer transcript.Author, thread transcript.Sequence) viewModel {
	v := viewModel{qualifies: make(map[transcript.Sequence]bool), elided: make(map[transcript.Sequence]bool)}
	bySeq := make(map[transcript.Sequence]*transcript.Message, len(rows))
	answered := make(map[transcript.Sequence]bool) // roots whose first reply is found
	for i := range rows {
		m := &rows[i]
		bySeq[m.Seq] = m
		if m.Blank() {
			continue
		}
		readable := m.ReadableBy(viewer)
		atLevel := m.Parent == 0
		if thread != 0 {
			atLevel = m.Seq == thread || m.Parent == thread
		}
		switch {
		case atLevel && readable:
			v.qualifies[m.Seq] = true
		case atLevel:
			v.elided[m.Seq] = true
		}
		if thread == 0 && m.Parent != 0 && readable {
			if p := bySeq[m.Parent]; p != nil && p.Parent == 0 && !answered[p.Seq] {
				answered[p.Seq] = true
				v.qualifies[m.Seq] = true
			}
		}
	}
	return v
}

// streamEvent is one message or elided event a stream received.
type streamEvent struct {
	id  transcript.Sequence
	msg *transcript.Message
	eli *transcript.Elision
}

// at is where the event stands in sequence order: a message's Seq, an elision's From.
func (e streamEvent) at() transcript.Sequence {
	if e.msg != nil {
		return e.msg.Seq
	}
	return e.eli.From
}

// checkStream compares the events a stream of viewer on thread received, from watermark
// from through the row through (its last), with the model over rows, the desk's final
// log, and returns what differs. Exactly:
//
//   - the messages are the rows of (from, through] that qualify, minus viewer's own, in
//     order, each once, each equal to the stored row;
//   - every elided row of (from, through] is in exactly one elision, whose count is the
//     number of elided rows in its range and whose readers are theirs, and no row that
//     qualifies (viewer's own included: they split runs too) lies inside one;
//   - the events are in sequence order, ids strictly increasing.
func checkStream(rows []transcript.Message, viewer transcript.Author, thread, from, through transcript.Sequence, got []streamEvent) []string {
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, fmt.Sprintf(format, args...)) }
	model := modelView(rows, viewer, thread)
	bySeq := make(map[transcript.Sequence]transcript.Message, len(rows))
	for _, m := range rows {
		bySeq[m.Seq] = m
	}

	var want, gotSeqs []transcript.Sequence
	for _, m := range rows {
		if m.Seq > from && m.Seq <= through && model.qualifies[m.Seq] && !m.Author.Same(viewer) {
			want = append(want, m.Seq)
		}
	}
	var last transcript.Sequence
	var lastAt transcript.Sequence
	covered := make(map[transcript.Sequence]int) // elided row: the elisions that hold it
	for i, ev := range got {
		if ev.id <= last {
			fail("event %d: id %d after id %d", i, ev.id, last)
		}
		if ev.at() <= lastAt && i > 0 {
			fail("event %d at %d after one at %d: not in sequence order", i, ev.at(), lastAt)
		}
		last, lastAt = ev.id, ev.at()
		if m := ev.msg; m != nil {
			gotSeqs = append(gotSeqs, m.Seq)
			if stored, ok := bySeq[m.Seq]; !ok {
				fail("message %d is no row of the desk", m.Seq)
			} else if !sameRow(stored, *m) {
				fail("message %d differs from the stored row (-stored +got):\n%s", m.Seq, cmp.Diff(stored, *m, cmpopts.EquateEmpty()))
			}
			continue
		}
		e := ev.eli
		if e.From > e.Through || !model.elided[e.From] || !model.elided[e.Through] {
			fail("elision %d-%d: its ends are not both elided rows", e.From, e.Through)
		}
		n := 0
		var readers []transcript.Author
		for seq := e.From; seq <= e.Through; seq++ {
			switch {
			case model.elided[seq]:
				n++
				covered[seq]++
				r := bySeq[seq].Readers()
				if readers == nil {
					readers = r
				} else if identities(r) != identities(readers) {
					fail("elision %d-%d joins rows of readers %s and %s", e.From, e.Through, identities(readers), identities(r))
				}
			case model.qualifies[seq]:
				fail("elision %d-%d holds row %d, which qualifies", e.From, e.Through, seq)
			}
		}
		if n != e.Count {
			fail("elision %d-%d: count %d, elided rows in it %d", e.From, e.Through, e.Count, n)
		}
		if identities(e.Readers) != identities(readers) {
			fail("elision %d-%d: readers %s, the rows' %s", e.From, e.Through, identities(e.Readers), identities(readers))
		}
	}
	if !slices.Equal(gotSeqs, want) {
		fail("messages differ from the model: %s", seqDiff(want, gotSeqs))
	}
	elided := 0
	for seq := range model.elided {
		if seq <= from || seq > through {
			continue
		}
		elided++
		if covered[seq] != 1 {
			fail("elided row %d is in %d elisions, want 1", seq, covered[seq])
		}
	}
	for seq := range covered {
		if seq <= from || seq > through {
			fail("elided row %d is outside the stream's range (%d, %d]", seq, from, through)
		}
	}
	total := 0
	for _, ev := range got {
		if ev.eli != nil {
			total += ev.eli.Count
		}
	}
	if total != elided {
		fail("elisions count %d rows, the model elides %d", total, elided)
	}
	return errs
}

// sameRow reports whether a and b are the same row, labels and time included: what
// cmp.Diff would find equal, at a fraction of its cost over tens of thousands of events.
func sameRow(a, b transcript.Message) bool {
	return a.Seq == b.Seq && a.Parent == b.Parent && a.Author == b.Author && a.Content == b.Content &&
		a.At.Equal(b.At) && a.Key == b.Key && slices.Equal(a.Audience, b.Audience)
}

// identities names authors by identity, in order: "agent:a,operator".
func identities(as []transcript.Author) string {
	names := make([]string, len(as))
	for i, a := range as {
		names[i] = a.String()
	}
	return strings.Join(names, ",")
}

// seqDiff describes how got differs from want: what is missing, what is extra, what comes
// twice.
func seqDiff(want, got []transcript.Sequence) string {
	inWant := make(map[transcript.Sequence]bool, len(want))
	for _, s := range want {
		inWant[s] = true
	}
	seen := make(map[transcript.Sequence]int, len(got))
	var extra, twice []transcript.Sequence
	for _, s := range got {
		seen[s]++
		switch {
		case seen[s] == 2:
			twice = append(twice, s)
		case !inWant[s] && seen[s] == 1:
			extra = append(extra, s)
		}
	}
	var missing []transcript.Sequence
	for _, s := range want {
		if seen[s] == 0 {
			missing = append(missing, s)
		}
	}
	return fmt.Sprintf("%d wanted, %d got; missing %v; extra %v; twice %v", len(want), len(got), clip(missing), clip(extra), clip(twice))
}

func clip(s []transcript.Sequence) []transcript.Sequence {
	if len(s) > 20 {
		return s[:20]
	}
	return s
}

// rowsLog is a Log over rows read already, ascending: the final rows, without a store's cost
// for each of the many projections of checkModel.
type rowsLog []transcript.Message

func (l rowsLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	i := len(l)
	if before != 0 {
		i, _ = slices.BinarySearchFunc(l, before, func(m transcript.Message, b transcript.Sequence) int { return stdcmp.Compare(m.Seq, b) })
	}
	var pg transcript.Page
	for j := i - 1; j >= 0 && len(pg.Messages) < limit; j-- {
		pg.Messages = append(pg.Messages, l[j])
	}
	if n := len(pg.Messages); n > 0 && i-n > 0 {
		pg.Next = pg.Messages[n-1].Seq
	}
	return pg, nil
}

// checkModel cross-checks the model's messages with transcript.Project over the same log:
// one projection of the whole log below through+1, with a window larger than the log, holds
// exactly the rows the model says qualify.
func checkModel(ctx context.Context, rows []transcript.Message, viewer transcript.Author, desk string, thread, through transcript.Sequence) error {
	if len(rows) >= transcript.ScanLimit {
		return fmt.Errorf("the desk holds %d rows: the model needs fewer than %d", len(rows), transcript.ScanLimit)
	}
	p, err := transcript.Project(ctx, rowsLog(rows), transcript.Query{
		Conversation: transcript.Conversation{Desk: desk, Thread: thread},
		Before:       through + 1,
		Window:       transcript.ScanLimit,
		Viewer:       viewer,
	})
	if err != nil {
		return err
	}
	model := modelView(rows, viewer, thread)
	var want, got []transcript.Sequence
	for _, m := range rows {
		if m.Seq <= through && model.qualifies[m.Seq] {
			want = append(want, m.Seq)
		}
	}
	for _, m := range p.Messages {
		got = append(got, m.Seq)
	}
	if !slices.Equal(want, got) {
		return fmt.Errorf("the model and transcript.Project disagree for %s on thread %d: %s", viewer, thread, seqDiff(want, got))
	}
	elided := 0
	for seq := range model.elided {
		if seq <= through {
			elided++
		}
	}
	n := 0
	for _, e := range p.Elided {
		n += e.Count
	}
	if n != elided {
		return fmt.Errorf("the model elides %d rows for %s on thread %d, transcript.Project %d", elided, viewer, thread, n)
	}
	return nil
}

// TestStreamModel tests the model and checkStream against themselves: the events a
// stream would send, made with sharing.Prepare over a random desk growing row by row (as
// the server makes them: Prepare from the watermark at each new head, the viewer's own
// messages left out, events in sequence order), pass; and each way a stream could go
// wrong — a message lost, sent twice or out of order, one the viewer may not read or wrote
// itself, a changed row, an elision lost or miscounted — is reported.
func TestStreamModel(t *testing.T) {
	ctx := t.Context()
	rng := rand.New(rand.NewPCG(1, 2))
	people := []transcript.Author{transcript.Operator(), transcript.Agent("a", "A"), transcript.Agent("b", "B"), transcript.Person("p", "P")}
	mem := memlog.New()
	for i := range 300 {
		m := transcript.Message{Author: people[rng.IntN(len(people))], Content: fmt.Sprint("row ", i)}
		if rng.IntN(20) == 0 {
			m.Content = " "
		}
		switch head := mem.Head(); {
		case head >= 5 && rng.IntN(4) == 0: // the first rows' threads grow long
			m.Parent = 1 + transcript.Sequence(rng.Uint64N(5))
		case head > 0 && rng.IntN(4) == 0:
			m.Parent = 1 + transcript.Sequence(rng.Uint64N(uint64(head)))
		}
		if rng.IntN(4) == 0 {
			for _, p := range people[1:] {
				if !p.Same(m.Author) && rng.IntN(2) == 0 {
					m.Audience = append(m.Audience, p)
				}
			}
		}
		if _, err := mem.Append(ctx, m); err != nil && !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Fatal(err)
		}
	}
	rows := mem.Messages()
	head := rows[len(rows)-1].Seq
	roots := []transcript.Sequence{0} // the channel, and the threads of the first roots
	for _, m := range rows[:5] {
		if m.Parent == 0 {
			roots = append(roots, m.Seq)
		}
	}
	for _, viewer := range append(people, transcript.Person("q", "")) {
		for _, thread := range roots {
			from := transcript.Sequence(rng.Uint64N(uint64(head) / 2))
			conv := transcript.Conversation{Thread: thread}
			state := sharing.Initialized(conv, from)
			var events []streamEvent
			for n := int(from) + 1; n <= len(rows); n += 1 + rng.IntN(7) {
				plan, err := sharing.Prepare(ctx, rowsLog(rows[:n]), sharing.Query{Desired: conv, Current: conv, State: state, Viewer: viewer})
				if err != nil || plan.Reinitialize != 0 {
					t.Fatalf("Prepare: %v, %v", plan.Reinitialize, err)
				}
				var batch []streamEvent
				for _, m := range plan.Delta.Messages {
					if !m.Author.Same(viewer) {
						batch = append(batch, streamEvent{id: m.Seq, msg: &m})
					}
				}
				for _, e := range plan.Delta.Elided {
					batch = append(batch, streamEvent{id: e.Through, eli: &e})
				}
				slices.SortFunc(batch, func(a, b streamEvent) int { return stdcmp.Compare(a.at(), b.at()) })
				events = append(events, batch...)
				state = plan.Delta.Next
			}
			through := state.Watermark
			name := fmt.Sprintf("%s/thread=%d/from=%d", viewer, thread, from)
			if err := checkModel(ctx, rows[:through], viewer, "", thread, through); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			if errs := checkStream(rows, viewer, thread, from, through, events); len(errs) > 0 {
				t.Fatalf("%s: the events Prepare gives differ from the model: %v", name, errs)
			}
			for _, mu := range streamMutations(rows, viewer, from, events) {
				if errs := checkStream(rows, viewer, thread, from, through, mu.events); len(errs) == 0 {
					t.Errorf("%s: %s: not reported", name, mu.name)
				}
			}
		}
	}
}

type streamMutation struct {
	name   string
	events []streamEvent
}

// streamMutations returns the ways events could be wrong that apply to them.
func streamMutations(rows []transcript.Message, viewer transcript.Author, from transcript.Sequence, events []streamEvent) []streamMutation {
	var out []streamMutation
	add := func(name string, f func(evs []streamEvent) []streamEvent) {
		evs := slices.Clone(events)
		out = append(out, streamMutation{name, f(evs)})
	}
	firstMsg, firstEli := -1, -1
	for i, ev := range events {
		if ev.msg != nil && firstMsg < 0 {
			firstMsg = i
		}
		if ev.eli != nil && firstEli < 0 {
			firstEli = i
		}
	}
	if firstMsg >= 0 {
		add("a message lost", func(evs []streamEvent) []streamEvent { return slices.Delete(evs, firstMsg, firstMsg+1) })
		add("a message twice", func(evs []streamEvent) []streamEvent { return slices.Insert(evs, firstMsg, evs[firstMsg]) })
		add("a changed row", func(evs []streamEvent) []streamEvent {
			m := *evs[firstMsg].msg
			m.Content += "!"
			evs[firstMsg].msg = &m
			return evs
		})
	}
	if len(events) >= 2 {
		add("two events swapped", func(evs []streamEvent) []streamEvent {
			evs[0], evs[1] = evs[1], evs[0]
			return evs
		})
	}
	if firstEli >= 0 {
		add("an elision lost", func(evs []streamEvent) []streamEvent { return slices.Delete(evs, firstEli, firstEli+1) })
		add("an elision miscounted", func(evs []streamEvent) []streamEvent {
			e := *evs[firstEli].eli
			e.Count++
			evs[firstEli].eli = &e
			return evs
		})
	}
	for _, m := range rows {
		if !m.ReadableBy(viewer) && !m.Blank() && m.Seq > from {
			add("a row the viewer may not read", func(evs []streamEvent) []streamEvent { return insertMessage(evs, m) })
			break
		}
	}
	for _, m := range rows {
		if m.Author.Same(viewer) && m.Parent == 0 && !m.Blank() && m.Seq > from {
			add("the viewer's own row", func(evs []streamEvent) []streamEvent { return insertMessage(evs, m) })
			break
		}
	}
	return out
}

// insertMessage puts m among evs in sequence order, replacing an elision that holds it.
func insertMessage(evs []streamEvent, m transcript.Message) []streamEvent {
	i, _ := slices.BinarySearchFunc(evs, m.Seq, func(ev streamEvent, s transcript.Sequence) int { return stdcmp.Compare(ev.at(), s) })
	return slices.Insert(evs, i, streamEvent{id: m.Seq, msg: &m})
}
