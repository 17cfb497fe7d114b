package sharing

import (
	"cmp"
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cut"
)

// Prefix returns the part of d that a reader who takes only d's oldest n messages has
// seen, for a delta that cannot be delivered whole (a model's context budget, say): those
// n messages, the elisions and corrections below the first message left out, Remaining
// grown by the messages and corrections left out, and as Next the state that accepts exactly that — its
// watermark below the first message left out, at the newest row the prefix holds (a
// message, the newest row of an elision, or a correction; from's watermark when the prefix
// holds none: a row the log has, so that a Prepare from it can cross it), and the present
// entries of from above it. from must be the state d was prepared from.
//
// Committing that Next loses nothing and repeats nothing: a Prepare from it, over the same
// log with the same bound, returns exactly the messages d holds from index n on and the
// elisions and corrections d holds above them; the rows of the prefix never come back.
// (Elisions lie between consecutive messages of a delta, so none is cut in two.)
//
// n >= len(d.Messages) returns d; n < 0 counts as 0, which keeps only the elisions and
// corrections below d's first message. The result's Messages and Elided are never nil (its
// Corrections nil when it holds none), and its own (the rows' audiences and the elisions'
// readers it shares with d, as a copy of a Message does).
func (d Delta) Prefix(n int, from State) Delta {
	n = max(n, 0)
	if n >= len(d.Messages) {
		d.Messages = append([]transcript.Message{}, d.Messages...)
		d.Elided = append([]transcript.Elision{}, d.Elided...)
		d.Corrections = slices.Clone(d.Corrections)
		d.Next = d.Next.clone()
		return d
	}
	return d.Below(d.Messages[n].Seq, from)
}

// Below is the Prefix that holds what d holds below cut, the Seq of a message or a
// correction of d (no elision of d spans one): its messages, its elisions and its
// corrections, with the Next that commits exactly those, as Prefix says. A reader that
// delivers a delta item by item (a message or a correction) cuts it with Below at the first
// item left out.
func (d Delta) Below(cut transcript.Sequence, from State) Delta {
	next := State{Conversation: d.Next.Conversation, Watermark: from.Watermark, Viewer: d.Next.Viewer, Digest: d.Next.Digest}
	n := 0
	for n < len(d.Messages) && d.Messages[n].Seq < cut {
		next.Watermark = max(next.Watermark, d.Messages[n].Seq)
		n++
	}
	elided := []transcript.Elision{}
	for _, e := range d.Elided {
		if e.Through < cut {
			elided = append(elided, e)
			next.Watermark = max(next.Watermark, e.Through)
		}
	}
	var corrections []transcript.Message
	for _, c := range d.Corrections {
		if c.Seq < cut {
			corrections = append(corrections, c)
			next.Watermark = max(next.Watermark, c.Seq)
		}
	}
	for _, seq := range from.Present {
		if seq > next.Watermark {
			next.Present = append(next.Present, seq)
		}
	}
	return Delta{Messages: append([]transcript.Message{}, d.Messages[:n]...), Elided: elided, Corrections: corrections, Next: next,
		Remaining: d.Remaining + len(d.Messages) - n + len(d.Corrections) - len(corrections)}
}

// WithinBytes is d's Prefix of its oldest messages and corrections, in sequence order, whose
// content fits in max bytes together (at least one, so that a reader bounded by it always
// moves on), with the Next that commits exactly those. max <= 0 returns d's Prefix of all
// of it. from must be the state d was prepared from.
func (d Delta) WithinBytes(max int, from State) Delta {
	items := slices.SortedFunc(slices.Values(slices.Concat(d.Messages, d.Corrections)), func(a, b transcript.Message) int {
		return cmp.Compare(a.Seq, b.Seq)
	})
	if n := cut.Within(len(items), max, func(i int) int { return len(items[i].Content) }); n < len(items) {
		return d.Below(items[n].Seq, from)
	}
	return d.Prefix(len(d.Messages), from)
}
