package render

import "github.com/sharedesk/transcript"

// Block is one message or one elision of a view, rendered as user-side text: what a tool
// result holds (the MCP tools), where every row is reported rather than spoken.
// Exactly one of Message and Elision is set, pointing into the slices given to Blocks; a
// delta's correction (see WithCorrections) is a Message whose Corrects is set.
type Block struct {
	Message *transcript.Message
	Elision *transcript.Elision
	Text    string // the message's Envelope, or the elision's ElisionTag
}

// Blocks returns one Block per message and per elision, in sequence order (msgs and elided
// ascending, as a Projection or a Delta holds them): every message in its Envelope — the
// viewer's own too, whose envelope names it, since a tool result is no assistant turn — and
// every elision as its ElisionTag. Each block's text stands alone, so a caller may keep any
// run of them and join them with newlines.
func Blocks(msgs []transcript.Message, elided ...transcript.Elision) []Block {
	out := make([]Block, 0, len(msgs)+len(elided))
	for x := range entries(msgs, elided) {
		if x.e != nil {
			out = append(out, Block{Elision: x.e, Text: ElisionTag(*x.e)})
		} else {
			out = append(out, Block{Message: x.m, Text: Envelope(*x.m)})
		}
	}
	return out
}
