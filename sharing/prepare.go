package sharing

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"

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
	// MaxBytes is the answer's byte budget; 0 (or less) means none. With one, the delta is
	// the one without it cut by Delta.WithinBytes(MaxBytes, State): its oldest messages
	// within the budget, with the Next that commits exactly those. The walk lets go of each
	// message's content as soon as that cut is certain to drop it: it holds about MaxBytes
	// of content, and a page, besides the first replies whose roots it has not read yet.
	// Corrections count toward the budget as messages do, in sequence order among them.
	MaxBytes int
	// ExceptAuthor's messages are left out of the delta's Messages, and its corrections out
	// of its Corrections: the delta is the one without it less those messages, cut by the
	// budget only then, so they take none of it, and Next commits past them as past the
	// rest. They still part the elisions around them, as they do in the delta without it.
	// The zero Author leaves out none. A reader to whom its own posts are never news passes
	// itself.
	ExceptAuthor transcript.Author
}

// Delta is what the agent has not seen, and the state to commit once the turn is durable.
// A delta Prepare returns has Messages and Elided never nil: empty ones for nothing new;
// Corrections is nil when it holds none.
type Delta struct {
	Messages []transcript.Message `json:"messages"` // chronological, only what the agent has not seen
	// Elided stands for the rows of the delta's range the viewer may not read, as in
	// transcript.Projection, placed among Messages and Corrections by sequence: no
	// elision spans a message or a correction of the delta.
	Elided []transcript.Elision `json:"elided,omitempty"`
	// Corrections holds, ascending Seq, the newest correction in the delta's range of each
	// row of the conversation the agent may hold: each target that qualifies for the
	// conversation as the viewer reads it, over the delta's scan (at channel level a root,
	// or a root's first reply; at thread level the thread's root, wherever it lies, or one
	// of its direct replies; a redacted row qualifies as it did before), less the
	// corrections in the state's present set or by Query.ExceptAuthor. An edit carries its
	// target's new content, a redaction none (Redacted).
	//
	// The caller applies each correction c to the row it holds with Seq c.Corrects, when
	// c.Seq is above that row's Revised: the row's Content becomes c.Content, its Redacted
	// c.Redacted and its Revised c.Seq. Applying them and then appending Messages gives what
	// one projection at the new bound shows, save for corrections made at or above the
	// bound, which the next delta brings (a row the agent was shown is already as the log
	// held it then, hence the check on Revised). Nil when the delta holds none.
	Corrections []transcript.Message `json:"corrections,omitempty"`
	Next        State                `json:"next"` // commit it only after the turn is durably appended
	// Remaining is how many newer messages and corrections a byte budget (Query.MaxBytes, WithinBytes,
	// Prefix) left for the next delta, from Next; 0 when none were.
	Remaining int `json:"-"`
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
//  2. Desired, Current and State.Conversation not all equal, or a state that names another
//     viewer than q.Viewer (State.BelongsTo): ConversationChanged, no read;
//  3. B != 0 && B < M is ErrWatermarkRegression, no read; B != 0 && B == M is an empty
//     delta with the state unchanged (save Next.Viewer, as in 6), no read;
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
//     holds the entries of S above the new watermark; Next.Viewer is q.Viewer's identity
//     (Kind and ID).
//
// The delta's corrections are those Delta.Corrections describes, over the same scan: to
// learn whether a corrected row qualifies, the walk reads on below the watermark to it and,
// at channel level, to its root, within ScanLimit; a delta whose range holds no correction
// reads no further for them.
//
// With q.ExceptAuthor, that author's messages are then left out of the delta's messages;
// with q.MaxBytes, the delta is then cut to its oldest messages within the budget, as
// Delta.WithinBytes cuts it, the walk holding no more content than it must (see Query).
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
	if q.Desired != q.Current || q.Desired != s.Conversation || !s.BelongsTo(q.Viewer) {
		return Plan{Reinitialize: ConversationChanged}, nil
	}
	m, b := s.Watermark, q.Before
	switch {
	case b != 0 && b < m:
		return Plan{}, fmt.Errorf("%w: before %d, watermark %d", ErrWatermarkRegression, b, m)
	case b != 0 && b == m:
		next := s.clone()
		next.Viewer = viewerIdentity(q.Viewer)
		return Plan{Delta: Delta{Messages: []transcript.Message{}, Elided: []transcript.Elision{}, Next: next}}, nil
	}
	w := walk{
		conversation: q.Desired, watermark: m, bound: b, viewer: q.Viewer, present: s.Present,
		first: transcript.FirstReplies{Viewer: q.Viewer}, maxBytes: max(q.MaxBytes, 0), except: q.ExceptAuthor,
	}
	reason, err := w.run(ctx, log, first)
	if err != nil || reason != 0 {
		return Plan{Reinitialize: reason}, err
	}
	next := State{Conversation: s.Conversation, Watermark: b, Viewer: viewerIdentity(q.Viewer)}
	if b == 0 {
		next.Watermark = max(w.head, m)
	}
	for _, seq := range s.Present {
		if seq > next.Watermark {
			next.Present = append(next.Present, seq)
		}
	}
	msgs, sizes := w.delta()
	corrections := w.corr.delta(s.Present) // ExceptAuthor's among them, which part elisions too
	elided := transcript.Elide(w.elidedRows(), w.parting(msgs, corrections))
	d := Delta{Messages: msgs, Elided: elided, Corrections: except(corrections, q.ExceptAuthor), Next: next}
	if d.Messages == nil {
		d.Messages = []transcript.Message{}
	}
	if d.Elided == nil {
		d.Elided = []transcript.Elision{}
	}
	if w.maxBytes > 0 {
		d = d.withinBytes(w.maxBytes, s, func(i int) int { return sizes[i] })
	}
	return Plan{Delta: d}, nil
}

// walk collects the qualifying rows above the watermark.
type walk struct {
	conversation transcript.Conversation
	watermark    transcript.Sequence
	bound        transcript.Sequence // the query's Before
	viewer       transcript.Author
	present      []transcript.Sequence   // the state's present set: rows accepted already
	head         transcript.Sequence     // the newest row read
	low          transcript.Sequence     // the oldest row read
	crossed      bool                    // a row at or below the watermark was read
	fresh        freshRows               // the delta's rows: qualifying, above the watermark, not present; unsorted
	elided       []transcript.Message    // elided rows above the watermark, newest first, without content
	first        transcript.FirstReplies // channel level only
	// maxBytes is the answer's byte budget (0: none), heldBytes the content fresh holds.
	maxBytes, heldBytes int
	except              transcript.Author     // the query's ExceptAuthor
	excepted            []transcript.Sequence // the rows of the delta except left out, unsorted
	corr                *corrections          // the delta's corrections; nil until the walk reads one
}

// freshRows are the rows of a delta, copies of the walk's, and with a budget the sizes of
// their content, which stay known when the budget lets the content go.
type freshRows struct {
	rows  []transcript.Message
	sizes []int // with a budget, sizes[i] is len(rows[i].Content) as read; else nil
}

// sort puts the rows in ascending Seq, their sizes with them.
func (f *freshRows) sort() {
	if f.sizes == nil {
		slices.SortFunc(f.rows, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
		return
	}
	sort.Sort(f)
}

func (f *freshRows) Len() int           { return len(f.rows) }
func (f *freshRows) Less(i, j int) bool { return f.rows[i].Seq < f.rows[j].Seq }
func (f *freshRows) Swap(i, j int) {
	f.rows[i], f.rows[j] = f.rows[j], f.rows[i]
	f.sizes[i], f.sizes[j] = f.sizes[j], f.sizes[i]
}

// run reads log down from the bound until the delta is known, and returns a Reason when it
// cannot be.
func (w *walk) run(ctx context.Context, log transcript.Log, first int) (Reason, error) {
	p := transcript.NewPager(log, w.bound)
	for rows, err := range p.Pages(ctx, first) {
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
		case w.crossed && (!w.conversation.IsChannel() || w.first.Newest() <= w.watermark) && w.corr.settled(w.low):
			// No reply still pending could be a first reply above the watermark, and no
			// corrected row still unread could qualify.
			return 0, nil
		}
	}
	return 0, nil // not reached: the pages end at the log's end or at ScanLimit, both decided above
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
		w.low = m.Seq
		if w.corr != nil || m.IsCorrection() {
			w.addCorrection(m, above)
		}
		if thread == 0 {
			if reply := w.first.Add(m); reply != nil && reply.Seq > w.watermark {
				w.keep(reply)
			}
		}
		if above && w.conversation.AtLevel(m) && !m.Blank() {
			if m.ReadableBy(w.viewer) {
				w.keep(m)
			} else {
				c := *m
				c.Content = "" // Elide reads no content
				w.elided = append(w.elided, c)
			}
		}
	}
	if w.maxBytes > 0 && w.heldBytes > w.maxBytes {
		w.release()
	}
}

// addCorrection hands m to the walk's corrections, made when the walk reads the first
// correction above the watermark that the viewer may read: a walk that reads none keeps no
// state for them. The walk calls it for a correction, and for every row once they exist.
func (w *walk) addCorrection(m *transcript.Message, above bool) {
	if w.corr == nil {
		if !above || !m.ReadableBy(w.viewer) {
			return
		}
		w.corr = &corrections{viewer: w.viewer, thread: w.conversation.Thread}
	}
	w.corr.add(m, above)
}

// keep adds m to the delta's rows, unless the state has accepted it already; a row by
// except goes to excepted, without its content.
func (w *walk) keep(m *transcript.Message) {
	if _, found := slices.BinarySearch(w.present, m.Seq); found {
		return
	}
	if w.except != (transcript.Author{}) && m.Author.Same(w.except) {
		w.excepted = append(w.excepted, m.Seq)
		return
	}
	w.fresh.rows = append(w.fresh.rows, *m)
	if w.maxBytes > 0 {
		w.fresh.sizes = append(w.fresh.sizes, len(m.Content))
		w.heldBytes += len(m.Content)
	}
}

// release lets go of the content of every row of the delta the budget is certain to drop:
// a row with older rows of the delta whose content and its own pass the budget. The
// budget keeps the oldest rows, and every row read later is older, so such a row never
// comes back.
func (w *walk) release() {
	w.fresh.sort()
	older := 0 // content of the rows of the delta older than the current one
	for i, size := range w.fresh.sizes {
		m := &w.fresh.rows[i]
		if i > 0 && older+size > w.maxBytes && m.Content != "" {
			w.heldBytes -= len(m.Content)
			m.Content = ""
		}
		older += size
	}
}

// parting returns what parts the delta's elisions: its messages msgs, its corrections
// (a correction renders as a row among them, so no elision spans one), and, with the rows
// except left out, those too; as messages that hold only their Seq when more than msgs
// (all Elide reads of them).
func (w *walk) parting(msgs, corrections []transcript.Message) []transcript.Message {
	if len(w.elided) == 0 || (len(w.excepted) == 0 && len(corrections) == 0) {
		return msgs
	}
	all := make([]transcript.Message, 0, len(msgs)+len(w.excepted)+len(corrections))
	for i := range msgs {
		all = append(all, transcript.Message{Seq: msgs[i].Seq})
	}
	for _, seq := range w.excepted {
		all = append(all, transcript.Message{Seq: seq})
	}
	for i := range corrections {
		all = append(all, transcript.Message{Seq: corrections[i].Seq})
	}
	slices.SortFunc(all, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	return all
}

// elidedRows returns the elided rows in ascending Seq.
func (w *walk) elidedRows() []*transcript.Message {
	rows := make([]*transcript.Message, len(w.elided))
	for i := range w.elided {
		rows[len(rows)-1-i] = &w.elided[i]
	}
	return rows
}

// delta returns the delta's rows, chronological, and with a budget the sizes of their
// content as read.
func (w *walk) delta() ([]transcript.Message, []int) {
	w.fresh.sort()
	return w.fresh.rows, w.fresh.sizes
}
