package render

import (
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/plainjson"
)

// openAIMessage is one entry of a chat completions "messages" array.
type openAIMessage struct {
	Role    Role   `json:"role"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
}

// OpenAI returns msgs and elided as an OpenAI chat completions "messages" array for viewer:
// one entry per message and per elision, as Turns gives them, each message's user entry
// named after its author. The caller adds its own system prompt, if any, in front.
func OpenAI(viewer transcript.Author, msgs []transcript.Message, elided ...transcript.Elision) ([]byte, error) {
	return View{Messages: msgs, Elided: elided}.openAI(viewer)
}

func (v View) openAI(viewer transcript.Author) ([]byte, error) {
	turns := v.Turns(viewer)
	out := make([]openAIMessage, len(turns))
	for i, t := range turns {
		out[i] = openAIMessage(t)
	}
	return plainjson.Marshal(out)
}
