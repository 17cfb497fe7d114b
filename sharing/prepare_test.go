package sharing_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// row is a row to append to a test desk: its parent's Seq and its content.
type row struct {
	parent  transcript.Sequence
	content string
}

// newDesk appends rows to a new memlog; row i gets Seq i+1.
func newDesk(t testing.TB, rows ...row) *memlog.Log {
	t.Helper()
	l := memlog.New()
	for i, r := range rows {
		m := transcript.Message{Parent: r.parent, Author: transcript.Person(fmt.Sprint("p", i%2), "P"), Content: r.content}
		if _, err := l.Append(context.Background(), m); err != nil {
			t.Fatalf("append row %d: %v", i+1, err)
		}
	}
	return l
}

func rootRows(n int) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = row{0, fmt.Sprint("root ", i)}
	}
	return out
}

// readCounter counts host reads and the rows they returned.
type readCounter struct {
	transcript.Log
	reads, rows int
}

func (c *readCounter) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	c.reads++
	pg, err := c.Log.ReadBefore(ctx, before, limit)
	c.rows += len(pg.Messages)
	return pg, err
}

func seqsOf(msgs []transcript.Message) []transcript.Sequence {
	var out []transcript.Sequence
	for _, m := range msgs {
		out = append(out, m.Seq)
	}
	return out
}

func inThread(root transcript.Sequence) transcript.Conversation {
	return transcript.Conversation{Desk: "eng", Thread: root}
}

func TestPrepare(t *testing.T) {
	// 1 root  2 reply 1  3 reply 1  4 root  5 reply 2 (nested)  6 blank root  7 reply 6
	// 8 reply 4  9 root  10 blank reply 9  11 reply 9  12 reply 1
	small := newDesk(t, row{0, "q1"}, row{1, "a1"}, row{1, "a1 again"}, row{0, "q4"}, row{2, "nested"},
		row{0, "  "}, row{6, "a6"}, row{4, "a4"}, row{0, "q9"}, row{9, "\t"}, row{9, "a9"}, row{1, "late"})
	// A root at 1, 100 roots after it, then the first reply to 1.
	lateFirst := newDesk(t, append(append(rootRows(1), rootRows(100)...), row{1, "late first reply"})...)
	busy := newDesk(t, rootRows(transcript.ScanLimit+10)...)
	exact := newDesk(t, rootRows(transcript.ScanLimit)...)

	st := func(c transcript.Conversation, m transcript.Sequence, present ...transcript.Sequence) sharing.State {
		return sharing.State{Conversation: c, Watermark: m, Present: present}
	}
	q := func(s sharing.State, before transcript.Sequence) sharing.Query {
		return sharing.Query{Desired: s.Conversation, Current: s.Conversation, State: s, Before: before}
	}
	tests := []struct {
		name   string
		log    transcript.Log
		q      sharing.Query
		want   []transcript.Sequence
		next   sharing.State
		reason sharing.Reason
		err    error
		reads  int // -1: not checked
	}{
		{name: "channel: roots and first replies above the watermark", log: small, q: q(st(eng, 3), 0),
			want: []transcript.Sequence{4, 7, 8, 9, 11}, next: st(eng, 12), reads: -1},
		{name: "channel: a first reply to a root below the watermark", log: small, q: q(st(eng, 6), 0),
			want: []transcript.Sequence{7, 8, 9, 11}, next: st(eng, 12), reads: -1},
		{name: "channel: a root's second reply is not news", log: small, q: q(st(eng, 2), 0),
			want: []transcript.Sequence{4, 7, 8, 9, 11}, next: st(eng, 12), reads: -1},
		{name: "channel: first reply to an old root reads on below the watermark", log: lateFirst, q: q(st(eng, 101), 0),
			want: []transcript.Sequence{102}, next: st(eng, 102), reads: -1},
		{name: "channel: present rows are left out and dropped once below", log: small, q: q(st(eng, 3, 4, 9, 13), 0),
			want: []transcript.Sequence{7, 8, 11}, next: st(eng, 12, 13), reads: -1},
		{name: "channel: bound is exclusive and becomes the watermark", log: small, q: q(st(eng, 3, 9), 9),
			want: []transcript.Sequence{4, 7, 8}, next: st(eng, 9), reads: -1},
		{name: "channel: no news", log: small, q: q(st(eng, 12), 0), want: nil, next: st(eng, 12), reads: 1},
		{name: "channel: watermark above the head is unavailable", log: small, q: q(st(eng, 50), 0), reason: sharing.WatermarkUnavailable, reads: 1},
		{name: "watermark at the head", log: small, q: q(st(eng, 12), 13), want: nil, next: st(eng, 13), reads: 1},
		{name: "bound just above the head", log: small, q: q(st(eng, 10), 13), want: []transcript.Sequence{11}, next: st(eng, 13), reads: -1},
		{name: "bound beyond the head is unavailable", log: small, q: q(st(eng, 10), 15), reason: sharing.WatermarkUnavailable, reads: 2},
		{name: "bound beyond the head of an empty log", log: memlog.New(), q: q(st(eng, 0), 5), reason: sharing.WatermarkUnavailable, reads: 2},
		{name: "bound 1 on an empty log", log: memlog.New(), q: q(st(eng, 0), 1), want: nil, next: st(eng, 1), reads: 1},
		{name: "bound in a gap below newer rows", log: gappedDesk(t), q: q(st(eng, 0), 5), want: nil, next: st(eng, 5), reads: 2},
		{name: "bound beyond the head before a large gap", log: busy, q: q(st(eng, 5), transcript.ScanLimit+20), reason: sharing.WatermarkUnavailable, reads: 2},
		{name: "thread: root's new replies only", log: small, q: q(st(inThread(1), 2), 0),
			want: []transcript.Sequence{3, 12}, next: st(inThread(1), 12), reads: -1},
		{name: "thread: a new root and its replies", log: small, q: q(st(inThread(9), 8), 0),
			want: []transcript.Sequence{9, 11}, next: st(inThread(9), 12), reads: -1},
		{name: "thread: a blank root is never news", log: small, q: q(st(inThread(6), 0), 0),
			want: []transcript.Sequence{7}, next: st(inThread(6), 12), reads: -1},
		{name: "watermark 0 is crossed by the start of the log", log: small, q: q(st(eng, 0), 5),
			want: []transcript.Sequence{1, 2, 4}, next: st(eng, 5), reads: -1},
		{name: "empty log from watermark 0", log: memlog.New(), q: q(st(eng, 0), 0), want: nil, next: st(eng, 0), reads: 1},

		{name: "conversation changed: desired", log: small, reason: sharing.ConversationChanged, reads: 0,
			q: sharing.Query{Desired: inThread(1), Current: eng, State: st(eng, 3)}},
		{name: "conversation changed: current", log: small, reason: sharing.ConversationChanged, reads: 0,
			q: sharing.Query{Desired: eng, Current: inThread(1), State: st(eng, 3)}},
		{name: "conversation changed: stored", log: small, reason: sharing.ConversationChanged, reads: 0,
			q: sharing.Query{Desired: eng, Current: eng, State: st(inThread(1), 3)}},
		{name: "conversation changed: another desk", log: small, reason: sharing.ConversationChanged, reads: 0,
			q: sharing.Query{Desired: eng, Current: eng, State: st(transcript.Conversation{Desk: "ops"}, 3)}},
		{name: "gap too large", log: busy, q: q(st(eng, 5), 0), reason: sharing.GapTooLarge, reads: -1},
		{name: "gap too large when the log ends exactly at the scan limit", log: exact, q: q(st(eng, 0), 0), reason: sharing.GapTooLarge, reads: -1},
		{name: "watermark 0 crossed within the scan limit", log: newDesk(t, rootRows(transcript.ScanLimit-1)...), q: q(st(eng, 0), 0),
			want: seqRange(1, transcript.ScanLimit-1), next: st(eng, transcript.ScanLimit-1), reads: -1},
		{name: "watermark unavailable", log: gappedDesk(t), q: q(st(eng, 3), 0), reason: sharing.WatermarkUnavailable, reads: -1},
		{name: "watermark unavailable on an empty log", log: memlog.New(), q: q(st(eng, 3), 0), reason: sharing.WatermarkUnavailable, reads: 1},

		{name: "bound equal to the watermark", log: small, q: q(st(eng, 7, 9), 7), want: nil, next: st(eng, 7, 9), reads: 0},
		{name: "bound below the watermark", log: small, q: q(st(eng, 7), 6), err: sharing.ErrWatermarkRegression, reads: 0},
		{name: "oversized present set", log: small, q: q(st(eng, 0, seqRange(1, sharing.PresentSetLimit+1)...), 0), err: sharing.ErrPresentSetTooLarge, reads: 0},
		{name: "oversized present set before a changed conversation", log: small, err: sharing.ErrPresentSetTooLarge, reads: 0,
			q: sharing.Query{Desired: inThread(1), Current: eng, State: st(eng, 0, seqRange(1, sharing.PresentSetLimit+1)...)}},
		{name: "unsorted present set", log: small, q: q(st(eng, 0, 5, 4), 0), err: sharing.ErrInvalidState, reads: 0},
		{name: "present entry at the watermark", log: small, q: q(st(eng, 5, 5), 0), err: sharing.ErrInvalidState, reads: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &readCounter{Log: tt.log}
			stateBefore := tt.q.State
			stateBefore.Present = slices.Clone(tt.q.State.Present)
			plan, err := sharing.Prepare(t.Context(), log, tt.q)
			if tt.reads >= 0 && log.reads != tt.reads {
				t.Errorf("host reads = %d, want %d", log.reads, tt.reads)
			}
			if !slices.Equal(tt.q.State.Present, stateBefore.Present) || tt.q.State.Watermark != stateBefore.Watermark {
				t.Errorf("Prepare changed its input state: %+v, was %+v", tt.q.State, stateBefore)
			}
			if tt.err != nil || err != nil {
				if !errors.Is(err, tt.err) || tt.err == nil {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				if plan.Reinitialize != 0 || plan.Delta.Messages != nil {
					t.Errorf("plan on error = %+v, want zero", plan)
				}
				return
			}
			if plan.Reinitialize != tt.reason {
				t.Fatalf("Reinitialize = %v, want %v", plan.Reinitialize, tt.reason)
			}
			if tt.reason != 0 {
				if plan.Delta.Messages != nil || plan.Delta.Next.Watermark != 0 {
					t.Errorf("a reinitialization exposes a delta: %+v", plan.Delta)
				}
				return
			}
			if got := seqsOf(plan.Delta.Messages); !slices.Equal(got, tt.want) {
				t.Errorf("delta = %v, want %v", got, tt.want)
			}
			next := plan.Delta.Next
			if next.Conversation != tt.next.Conversation || next.Watermark != tt.next.Watermark || !slices.Equal(next.Present, tt.next.Present) {
				t.Errorf("Next = %+v, want %+v", next, tt.next)
			}
		})
	}
}

// gappedDesk holds rows 10..20 only: a watermark of 3 lies below the start of the log.
func gappedDesk(t *testing.T) transcript.Log {
	t.Helper()
	var rows []transcript.Message
	for s := transcript.Sequence(10); s <= 20; s++ {
		rows = append(rows, transcript.Message{Seq: s, Author: transcript.Operator(), Content: "x"})
	}
	l, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestPrepareSmallReads(t *testing.T) {
	l := newDesk(t, rootRows(5000)...)
	for _, news := range []int{0, 3} {
		log := &readCounter{Log: l}
		s := sharing.Initialized(eng, transcript.Sequence(5000-news))
		plan, err := sharing.Prepare(t.Context(), log, sharing.Query{Desired: eng, Current: eng, State: s})
		if err != nil || len(plan.Delta.Messages) != news {
			t.Fatalf("%d new: plan %+v, %v", news, plan, err)
		}
		if log.reads != 1 || log.rows > 8 {
			t.Errorf("%d new rows cost %d reads and %d rows, want one small read", news, log.reads, log.rows)
		}
	}
}

func TestPrepareRetryGivesTheSameDelta(t *testing.T) {
	l := newDesk(t, rootRows(20)...)
	s := sharing.Initialized(eng, 15)
	query := sharing.Query{Desired: eng, Current: eng, State: s}
	first, err := sharing.Prepare(t.Context(), l, query)
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Delta.Next.NotePresent(21); err != nil { // the caller's own bookkeeping
		t.Fatal(err)
	}
	again, err := sharing.Prepare(t.Context(), l, query)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seqsOf(first.Delta.Messages), seqsOf(again.Delta.Messages)) || again.Delta.Next.Watermark != 20 || len(again.Delta.Next.Present) != 0 {
		t.Errorf("retry from the uncommitted state: %v / %+v, first was %v", seqsOf(again.Delta.Messages), again.Delta.Next, seqsOf(first.Delta.Messages))
	}
}

func TestPrepareErrors(t *testing.T) {
	s := sharing.Initialized(eng, 3)
	q := sharing.Query{Desired: eng, Current: eng, State: s}
	t.Run("contract", func(t *testing.T) {
		_, err := sharing.Prepare(t.Context(), disorderedLog{}, q)
		var ce *transcript.ContractError
		if !errors.As(err, &ce) || !errors.Is(err, transcript.ErrNotDescending) {
			t.Fatalf("err = %v, want a ContractError for a disordered page", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		log := &readCounter{Log: newDesk(t, rootRows(5)...)}
		plan, err := sharing.Prepare(ctx, log, q)
		if !errors.Is(err, context.Canceled) || plan.Delta.Messages != nil {
			t.Fatalf("err = %v, plan %+v; want context.Canceled and no delta", err, plan)
		}
	})
}

// disorderedLog returns its rows oldest first.
type disorderedLog struct{}

func (disorderedLog) ReadBefore(context.Context, transcript.Sequence, int) (transcript.Page, error) {
	a := transcript.Operator()
	return transcript.Page{Messages: []transcript.Message{{Seq: 4, Author: a, Content: "x"}, {Seq: 5, Author: a, Content: "y"}}}, nil
}
