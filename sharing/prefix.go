package sharing

import (
	"slices"

	"github.com/sharedesk/transcript"
)

// Prefix returns the part of d that a reader who takes only d's oldest n messages has
// seen, for a delta that cannot be delivered whole (a model's context budget, say): those
// n messages, the elisions below the first message left out, the corrections at or below
// Next's watermark, Remaining grown by the messages left out, and as Next the state that
// accepts exactly that — its watermark below the first message left out, at the newest row
// the prefix holds (a message, or the newest row of an elision; from's watermark when the
// prefix holds none: a row the log has, so that a Prepare from it can cross it), and the
// present entries of from above it. from must be the state d was prepared from.
//
// Committing that Next loses nothing and repeats nothing: a Prepare from it, over the same
// log with the same bound, returns exactly the messages d holds from index n on and the
// elisions and corrections d holds above them; the rows of the prefix never come back. (Elisions lie
// between consecutive messages of a delta, so none is cut in two.)
//
// n >= len(d.Messages) returns d; n < 0 counts as 0, which keeps only the elisions below
// d's first message and the corrections below its watermark. The result's Messages and
// Elided are never nil (its Corrections nil when it holds none), and its own (the rows' audiences and the elisions' readers it shares with d, as a
// copy of a Message does).
func (d Delta) Prefix(n int, from State) Delta {
	n = max(n, 0)
	if n >= len(d.Messages) {
		d.Messages = append([]transcript.Message{}, d.Messages...)
		d.Elided = append([]transcript.Elision{}, d.Elided...)
		d.Corrections = slices.Clone(d.Corrections)
		d.Next = d.Next.clone()
		return d
	}
	cut := d.Messages[n].Seq // the oldest message left out
	next := State{Conversation: d.Next.Conversation, Watermark: from.Watermark}
	if n > 0 {
		next.Watermark = max(next.Watermark, d.Messages[n-1].Seq)
	}
	elided := []transcript.Elision{}
	for _, e := range d.Elided {
		if e.Through < cut {
			elided = append(elided, e)
			next.Watermark = max(next.Watermark, e.Through)
		}
	}
	for _, seq := range from.Present {
		if seq > next.Watermark {
			next.Present = append(next.Present, seq)
		}
	}
	var corrections []transcript.Message
	for _, c := range d.Corrections {
		if c.Seq <= next.Watermark {
			corrections = append(corrections, c)
		}
	}
	return Delta{Messages: append([]transcript.Message{}, d.Messages[:n]...), Elided: elided, Corrections: corrections, Next: next,
		Remaining: d.Remaining + len(d.Messages) - n}
}

// WithinBytes is d's Prefix of its oldest messages whose content fits in max bytes
// (transcript.OldestWithin: at least one, so that a reader bounded by it always moves
// on), with the Next that commits exactly those. Corrections count toward no budget: the
// prefix keeps those its Next commits, and the next delta brings the rest. max <= 0 returns d's Prefix of all of it.
// from must be the state d was prepared from.
func (d Delta) WithinBytes(max int, from State) Delta {
	return d.Prefix(transcript.OldestWithin(d.Messages, max), from)
}
