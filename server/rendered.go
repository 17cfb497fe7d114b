package server

import (
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// Rendered is the text each row and elision of an answer stands as in a model's input, as
// render writes it: a message's or a correction's Envelope, an elision's ElisionTag, and a
// view's digest's DigestTag, which goes before the first message. The
// escaping that keeps content from forging its author is the service's, so a client maps a
// view to model turns without writing it again. Each list is in its answer's order.
type Rendered struct {
	Messages    []string `json:"messages" doc:"Each message's envelope, in the order of the answer's messages."`
	Corrections []string `json:"corrections,omitempty" doc:"A delta's: each correction's envelope, in the order of its corrections."`
	Elided      []string `json:"elided" doc:"Each elision's tag, in the order of the answer's elided."`
	Digest      string   `json:"digest,omitempty" doc:"A view's with a digest: the digest's tag, user-side content that goes before the first message."`
}

// renderedOf is the rendered text of digest (nil: none), msgs, corrections and elided.
func renderedOf(digest *transcript.Digest, msgs, corrections []transcript.Message, elided []transcript.Elision) *Rendered {
	r := &Rendered{Messages: make([]string, len(msgs)), Elided: make([]string, len(elided))}
	if digest != nil {
		r.Digest = render.DigestTag(*digest)
	}
	for i, m := range msgs {
		r.Messages[i] = render.Envelope(m)
	}
	for _, c := range corrections {
		r.Corrections = append(r.Corrections, render.Envelope(c))
	}
	for i, e := range elided {
		r.Elided[i] = render.ElisionTag(e)
	}
	return r
}
