//go:build sdkcheck

// The Anthropic SDK is a large package to compile, and this check of it is a pure function's,
// with nothing for the race detector to see: make test runs it once, without the race detector
// (go test -tags sdkcheck ./render).

package render_test

import (
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/sharedesk/transcript/render"
)

func TestAnthropicDecodesIntoSDKTypes(t *testing.T) {
	for name, c := range sdkCases() {
		data, err := c.view().ModelInput(render.ModelAnthropic, triage)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var params anthropic.MessageNewParams
		if err := json.Unmarshal([]byte(`{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":`+string(data)+`}`), &params); err != nil {
			t.Fatalf("%s: MessageNewParams rejects %s: %v", name, data, err)
		}
		turns := c.view().Alternating(triage)
		if len(params.Messages) != len(turns) || len(params.Messages) == 0 {
			t.Fatalf("%s: SDK sees %d messages, want %d (> 0)", name, len(params.Messages), len(turns))
		}
		for i, m := range params.Messages {
			user := m.OfUser != nil
			if m.OfSystem != nil || user == (m.OfAssistant != nil) {
				t.Fatalf("%s: message %d is not exactly one of user or assistant: %s", name, i, data)
			}
			if user != (i%2 == 0) {
				t.Errorf("%s: message %d breaks alternation starting with user", name, i)
			}
			blocks := m.OfAssistant
			var text string
			if user {
				text = m.OfUser.Content[0].OfText.Text
			} else {
				text = blocks.Content[0].OfText.Text
			}
			if text != turns[i].Content || text == "" {
				t.Errorf("%s: message %d text = %q, want %q", name, i, text, turns[i].Content)
			}
		}
		if params.Messages[len(params.Messages)-1].OfUser == nil {
			t.Errorf("%s: ends on an assistant turn", name)
		}
	}
}
