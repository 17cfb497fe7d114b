package sharing

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
)

// Query asks for what an agent has not seen before its turn.
type Query struct {
	Desired transcript.Conversation // where this turn happens
	Current transcript.Conversation // where the agent is bound
	State   State                   // the last committed state
	Before  transcript.Sequence     // exclusive: the triggering message; 0: up to the newest row
	// Viewer is whose delta it is: rows Viewer may not read count as blank, as in
	// transcript.Query. The zero Author reads only the rows the whole desk reads.
	Viewer transcript.Author
}

// Delta is what the agent has not seen, and the state to commit once the turn is durable.
type Delta struct {
	Messages []transcript.Message `json:"messages"` // chronological, only what the agent has not seen
	// Elided stands for the rows of the delta's range the viewer may not read, as in
	// transcript.Projection, placed among Messages by sequence.
	Elided []transcript.Elision `json:"elided,omitempty"`
	Next   State                `json:"next"` // commit it only after the turn is durably appended
}

// Plan is Prepare's answer: a Delta, or a Reason to reinitialize (Reinitialize != 0, and
// then Delta is zero).
type Plan struct {
	Reinitialize Reason `json:"reinitialize,omitempty"`
	Delta        Delta  `json:"delta"`
}

// firstRead is the limit of a delta's first read. Most deltas between two turns are a few
// rows; the reads double from here, up to PageSize, for the rest.
const firstRead = 8

// Prepare returns what the agent with state q.State has not seen of q.Desired below
// q.Before. With M = q.State.Watermark, S = q.State.Present and B = q.Before, in order:
//
//  1. a state with more than PresentSetLimit entries is ErrPresentSetTooLarge, and one whose
//     present set is unsorted, duplicated or not above M is ErrInvalidState, without a read;
//  2. Desired, Current and State.Conversation not all equal: ConversationChanged, no read;
//  3. B != 0 && B < M is ErrWatermarkRegression, no read; B != 0 && B == M is an empty
//     delta with the state unchanged, no read;
//  4. the walk reads down from B; a row with Seq <= M crosses the watermark. A watermark
//     above the log's newest row (B == 0), or a bound whose row B-1 is newer than the
//     log's newest row, is WatermarkUnavailable, decided after the first read: the state
//     belongs to another log, or to one that lost rows, and a delta committed there would
//     skip the rows still to come below M or B. Not crossed after ScanLimit rows:
//     GapTooLarge (also when the log ends exactly there). The log ended first:
//     WatermarkUnavailable, except that a watermark of 0 is crossed by the start of the
//     log;
//  5. the delta is exactly the rows of (M, B) that qualify for Desired, as q.Viewer reads
//     it, under transcript.Project's definitions over the same scan, minus S,
//     chronological; its elisions are those of the rows of (M, B) transcript.Project would
//     elide (S plays no part in them), grouped among the delta's messages by
//     transcript.Elide;
//  6. Next.Watermark is B, or when B == 0 the newest row seen, never below M; Next.Present
//     holds the entries of S above the new watermark.
//
// Prepare mutates nothing; on a reinitialization or an error it returns no messages, and
// retrying from the same state over the same log gives the same delta. Pages are checked as
// transcript.Pager describes: a broken page is a *transcript.ContractError, a host failure a
// *transcript.ReadError, and a done ctx stops the walk with ctx.Err(). Knowing the log's
// newest row costs no read of its own, except when B != 0 and the first read shows no row
// B-1: then one read of the newest row tells whether the log holds rows at or above B.
func Prepare(ctx context.Context, log transcript.Log, q Query) (Plan, error) {
	return prepare(ctx, log, q, firstRead)
}

// prepare is Prepare with the first read's limit as a parameter, for benchmarks.
func prepare(ctx context.Context, log transcript.Log, q Query, first int) (Plan, error) {
	s := q.State
	if err := s.check(); err != nil {
		return Plan{}, err
	}
	if q.Desired != q.Current || q.Desired != s.Conversation {
		return Plan{Reinitialize: ConversationChanged}, nil
	}
	m, b := s.Watermark, q.Before
	switch {
	case b != 0 && b < m:
		return Plan{}, fmt.Errorf("%w: before %d, watermark %d", ErrWatermarkRegression, b, m)
	case b != 0 && b == m:
		return Plan{Delta: Delta{Next: s.clone()}}, nil
	}
	w := walk{conversation: q.Desired, watermark: m, bound: b, viewer: q.Viewer, first: transcript.FirstReplies{Viewer: q.Viewer}}
	reason, err := w.run(ctx, log, first)
	if err != nil || reason != 0 {
		return Plan{Reinitialize: reason}, err
	}
	next := State{Conversation: s.Conversation, Watermark: b}
	if b == 0 {
		next.Watermark = max(w.head, m)
	}
	for _, seq := range s.Present {
		if seq > next.Watermark {
			next.Present = append(next.Present, seq)
		}
	}
	msgs := w.delta(s.Present)
	return Plan{Delta: Delta{Messages: msgs, Elided: transcript.Elide(w.elidedRows(), msgs), Next: next}}, nil
}

// walk collects the qualifying rows above the watermark.
type walk struct {
	conversation transcript.Conversation
	watermark    transcript.Sequence
	bound        transcript.Sequence // the query's Before
	viewer       transcript.Author
	head         transcript.Sequence     // the newest row read
	crossed      bool                    // a row at or below the watermark was read
	fresh        []transcript.Message    // qualifying rows above the watermark, unsorted
	elided       []*transcript.Message   // elided rows above the watermark, newest first
	first        transcript.FirstReplies // channel level only
}

// run reads log down from the bound until the delta is known, and returns a Reason when it
// cannot be.
func (w *walk) run(ctx context.Context, log transcript.Log, first int) (Reason, error) {
	p := transcript.NewPager(log, w.bound)
	for size := first; ; size = min(2*size, transcript.PageSize) {
		rows, err := p.Next(ctx, min(size, transcript.ScanLimit-p.Scanned()))
		if err != nil {
			return 0, err
		}
		if p.Reads() == 1 {
			if len(rows) > 0 {
				w.head = rows[0].Seq
			}
			beyond, err := w.beyondHead(ctx, log)
			if err != nil {
				return 0, err
			}
			if beyond {
				return WatermarkUnavailable, nil
			}
		}
		w.add(rows)
		switch {
		case !w.crossed && p.Scanned() >= transcript.ScanLimit:
			return GapTooLarge, nil
		case !w.crossed && p.Done() && w.watermark != 0:
			return WatermarkUnavailable, nil
		case p.Done() || p.Scanned() >= transcript.ScanLimit:
			return 0, nil
		case w.crossed && (!w.conversation.IsChannel() || w.first.Newest() <= w.watermark):
			return 0, nil // no reply still pending could be a first reply above the watermark
		}
	}
}

// beyondHead reports, once the first read has set w.head, whether the watermark (bound 0)
// or the bound's row B-1 is newer than the log's newest row. With a bound, a first read that
// shows row B-1 settles it; otherwise the newest row of the log is read.
func (w *walk) beyondHead(ctx context.Context, log transcript.Log) (bool, error) {
	if w.bound == 0 {
		return w.head < w.watermark, nil
	}
	if w.bound == 1 || w.head == w.bound-1 {
		return false, nil
	}
	rows, err := transcript.NewPager(log, 0).Next(ctx, 1)
	if err != nil {
		return false, err
	}
	// The first read showed no row B-1: a newest row below B is older than B-1, or was
	// committed after that read, which missed it all the same.
	return len(rows) == 0 || rows[0].Seq < w.bound, nil
}

func (w *walk) add(rows []transcript.Message) {
	thread := w.conversation.Thread
	for i := range rows {
		m := &rows[i]
		above := m.Seq > w.watermark
		w.crossed = w.crossed || !above
		if thread == 0 {
			if reply := w.first.Add(m); reply != nil && reply.Seq > w.watermark {
				w.fresh = append(w.fresh, *reply)
			}
		}
		atLevel := m.Parent == 0
		if thread != 0 {
			atLevel = m.Seq == thread || m.Parent == thread
		}
		if above && atLevel && !m.Blank() {
			if m.ReadableBy(w.viewer) {
				w.fresh = append(w.fresh, *m)
			} else {
				w.elided = append(w.elided, m)
			}
		}
	}
}

// elidedRows returns the elided rows in ascending Seq.
func (w *walk) elidedRows() []*transcript.Message {
	slices.Reverse(w.elided)
	return w.elided
}

// delta returns the fresh rows not in present, chronological, in a new slice.
func (w *walk) delta(present []transcript.Sequence) []transcript.Message {
	out := slices.DeleteFunc(w.fresh, func(m transcript.Message) bool {
		_, found := slices.BinarySearch(present, m.Seq)
		return found
	})
	slices.SortFunc(out, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return out
}
