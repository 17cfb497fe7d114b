package render

import (
	"encoding/json"

	"github.com/sharedesk/transcript"
)

// openAIMessage is one entry of a chat completions "messages" array.
type openAIMessage struct {
	Role    Role   `json:"role"`
	Name    string `json:"name,omitempty"`
	Content string `json:"content"`
}

// OpenAI returns msgs as an OpenAI chat completions "messages" array for viewer: one entry per
// message, as Turns gives them, each user entry named after its author. The caller adds its
// own system prompt, if any, in front.
func OpenAI(viewer transcript.Author, msgs []transcript.Message) ([]byte, error) {
	turns := Turns(viewer, msgs)
	out := make([]openAIMessage, len(turns))
	for i, t := range turns {
		out[i] = openAIMessage(t)
	}
	return json.Marshal(out)
}
