package render

import "github.com/sharedesk/transcript"

// WithCorrections returns msgs and corrections, both in ascending sequence (a
// sharing.Delta's Messages and Corrections), merged into one new slice in ascending
// sequence: what every output of the package takes to render a delta with its corrections,
// each correction among the messages where its Seq places it,
//
//	render.Turns(viewer, render.WithCorrections(d.Messages, d.Corrections), d.Elided...)
//
// A correction (Corrects set) renders as a row of its author naming its target: in its
// Envelope, corrects="TARGET" and the target's new content, or, for a redaction,
// redacted="true" and none; in Text, a header that says "edits #TARGET" or "redacts
// #TARGET". Neither slice is modified; with no corrections, msgs itself is returned.
func WithCorrections(msgs, corrections []transcript.Message) []transcript.Message {
	if len(corrections) == 0 {
		return msgs
	}
	out := make([]transcript.Message, 0, len(msgs)+len(corrections))
	i, j := 0, 0
	for i < len(msgs) && j < len(corrections) {
		if corrections[j].Seq < msgs[i].Seq {
			out = append(out, corrections[j])
			j++
		} else {
			out = append(out, msgs[i])
			i++
		}
	}
	out = append(out, msgs[i:]...)
	return append(out, corrections[j:]...)
}
