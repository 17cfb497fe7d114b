package render

import "github.com/sharedesk/transcript"

// View is what one rendering shows: a projection's or a delta's messages and elisions, both
// in ascending sequence, and the conversation's digest (nil: none), which renders before
// the first of them, user-side. Its methods render as the package's functions of the same
// names do, the digest first:
//
//	v := render.View{Digest: p.Digest, Messages: p.Messages, Elided: p.Elided}
//	data, err := v.ModelInput(render.ModelAnthropic, viewer)
//
// A delta carries no digest; the package's functions render a view without one.
type View struct {
	Digest   *transcript.Digest
	Messages []transcript.Message
	Elided   []transcript.Elision
}
