package render

import (
	"fmt"

	"github.com/sharedesk/transcript"
)

// ModelFormat names the JSON a model reads its turns in: ModelOpenAI or ModelAnthropic.
type ModelFormat string

// The model formats: what `transcript view --format` and `delta --format` print, and what
// the service's model route (GET /v1/desks/{desk}/model) answers.
const (
	ModelOpenAI    ModelFormat = "openai"    // OpenAI chat completions messages (OpenAI)
	ModelAnthropic ModelFormat = "anthropic" // Anthropic Messages API messages (Anthropic)
)

// ModelInput returns msgs and elided as viewer's model reads them in format: the JSON
// document OpenAI or Anthropic returns, followed by one newline. These are the exact bytes
// the command prints and the service serves, so that what a person inspects is what a model
// is given: <, > and & stand as themselves, not HTML-escaped, so that the envelopes read as
// the model reads them. An unknown format is an error naming it.
func ModelInput(format ModelFormat, viewer transcript.Author, msgs []transcript.Message, elided ...transcript.Elision) ([]byte, error) {
	return View{Messages: msgs, Elided: elided}.ModelInput(format, viewer)
}

// ModelInput returns what the package's ModelInput returns for v's messages and elisions,
// with v's digest, when it has one, as the first user-side content (see View.Turns and
// View.Alternating).
func (v View) ModelInput(format ModelFormat, viewer transcript.Author) ([]byte, error) {
	var data []byte
	var err error
	switch format {
	case ModelOpenAI:
		data, err = v.openAI(viewer)
	case ModelAnthropic:
		data, err = v.anthropic(viewer)
	default:
		return nil, fmt.Errorf("render: unknown model format %q: want openai or anthropic", string(format))
	}
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}
