package sharing

import (
	"context"
	"fmt"

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
	// within the budget, with the Next that commits exactly those. The walk holds about
	// MaxBytes of content and a page (transcript.ReadUnseen). Corrections count toward the
	// budget as messages do, in sequence order among them.
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

// Prepare returns what the agent with state q.State has not seen of q.Desired below
// q.Before. With M = q.State.Watermark, S = q.State.Present and B = q.Before, in order:
//
//  1. a state with more than PresentSetLimit entries is ErrPresentSetTooLarge, and one whose
//     present set is unsorted, duplicated or not above M is ErrInvalidState, without a read;
//  2. Desired, Current and State.Conversation not all equal, or a state that names another
//     viewer than q.Viewer (State.BelongsTo): ConversationChanged, no read;
//  3. B != 0 && B < M is ErrWatermarkRegression, no read; B != 0 && B == M is an empty
//     delta with the state unchanged (save Next.Viewer, as in 7), no read;
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
//     elide (S plays no part in them), grouped among the delta's messages as a
//     projection's are (transcript.ReadUnseen walks the log for it);
//  6. a state with a Digest, when a row of (M, B) corrects a row that digest may stand for
//     (a correction, by anyone, S's and ExceptAuthor's included, of a row at or below
//     Digest that every participant may read; in a thread, a row after its root):
//     DigestCorrected, however old the corrected row, since the correction row itself lies
//     above M. A state without one is never reinitialized for a correction;
//  7. Next.Watermark is B, or when B == 0 the newest row seen, never below M; Next.Present
//     holds the entries of S above the new watermark; Next.Viewer is q.Viewer's identity
//     (Kind and ID), and Next.Digest is the state's.
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
	u, err := transcript.ReadUnseen(ctx, log, transcript.UnseenQuery{
		Conversation: q.Desired, Viewer: q.Viewer, After: m, Seen: s.Present, Before: b,
		Except: q.ExceptAuthor, MaxBytes: q.MaxBytes, Digest: s.Digest,
	})
	switch {
	case err != nil:
		return Plan{}, err
	case u.Lost:
		return Plan{Reinitialize: WatermarkUnavailable}, nil
	case u.Partial:
		return Plan{Reinitialize: GapTooLarge}, nil
	case u.DigestCorrected:
		return Plan{Reinitialize: DigestCorrected}, nil
	}
	next := State{Conversation: s.Conversation, Watermark: b, Viewer: viewerIdentity(q.Viewer), Digest: s.Digest}
	if b == 0 {
		next.Watermark = max(u.Head, m)
	}
	for _, seq := range s.Present {
		if seq > next.Watermark {
			next.Present = append(next.Present, seq)
		}
	}
	d := Delta{Messages: u.Messages, Elided: u.Elided, Corrections: u.Corrections, Next: next}
	if u.Cut != 0 {
		d = d.Below(u.Cut, s)
	}
	return Plan{Delta: d}, nil
}
