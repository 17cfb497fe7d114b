package render

import (
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/plainjson"
)

// Notes Alternating adds where the messages alone would not make a valid exchange. They are
// the renderer's words, never a desk row's, and no escaped content can imitate them.
const (
	NoteNoMessages    = "<note>There are no messages.</note>"
	NoteStartsWithYou = "<note>The conversation shown begins with your own message.</note>"
	NoteNothingNewYet = "<note>No one has written since your last message.</note>"
	turnSeparator     = "\n\n"
)

// Alternating returns Turns merged for APIs that need strict alternation: consecutive turns
// of one role become one turn (contents joined by a blank line), the first turn is a user
// turn and so is the last. Where the messages start or end with the viewer's own, or there
// are none, a user turn holding a note (NoteStartsWithYou, NoteNothingNewYet, NoteNoMessages)
// fills the place. Merged turns carry no Name. The viewer's own blank messages (which no
// projection holds) are left out, since an empty assistant turn is not valid. Elisions are
// user-side turns, as Turns gives them.
func Alternating(viewer transcript.Author, msgs []transcript.Message, elided ...transcript.Elision) []Turn {
	return View{Messages: msgs, Elided: elided}.Alternating(viewer)
}

// Alternating returns v.Turns merged as the package's Alternating merges Turns: a digest's
// turn is the first user turn, merged with the user-side rows after it, so that a view
// with a digest needs neither NoteStartsWithYou nor NoteNoMessages.
func (v View) Alternating(viewer transcript.Author) []Turn {
	var out []Turn
	for _, t := range v.Turns(viewer) {
		if t.Role == Assistant && strings.TrimSpace(t.Content) == "" {
			continue
		}
		if len(out) == 0 && t.Role == Assistant {
			out = append(out, Turn{Role: User, Content: NoteStartsWithYou})
		}
		if n := len(out); n > 0 && out[n-1].Role == t.Role {
			out[n-1].Content += turnSeparator + t.Content
			out[n-1].Name = ""
			continue
		}
		out = append(out, t)
	}
	switch {
	case len(out) == 0:
		out = append(out, Turn{Role: User, Content: NoteNoMessages})
	case out[len(out)-1].Role == Assistant:
		out = append(out, Turn{Role: User, Content: NoteNothingNewYet})
	}
	return out
}

// anthropicMessage is one entry of a Messages API "messages" array.
type anthropicMessage struct {
	Role    Role                 `json:"role"`
	Content []anthropicTextBlock `json:"content"`
}

type anthropicTextBlock struct {
	Type string `json:"type"` // always "text"
	Text string `json:"text"`
}

// Anthropic returns msgs and elided as an Anthropic Messages API "messages" array for
// viewer, as Alternating gives them, each turn's content one text block.
func Anthropic(viewer transcript.Author, msgs []transcript.Message, elided ...transcript.Elision) ([]byte, error) {
	return View{Messages: msgs, Elided: elided}.anthropic(viewer)
}

func (v View) anthropic(viewer transcript.Author) ([]byte, error) {
	turns := v.Alternating(viewer)
	out := make([]anthropicMessage, len(turns))
	for i, t := range turns {
		out[i] = anthropicMessage{Role: t.Role, Content: []anthropicTextBlock{{Type: "text", Text: t.Content}}}
	}
	return plainjson.Marshal(out)
}
