package render_test

import (
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// sdkCase is a view whose rendering the official SDKs must accept.
type sdkCase struct {
	digest *transcript.Digest
	msgs   []transcript.Message
	elided []transcript.Elision
}

func (c sdkCase) view() render.View {
	return render.View{Digest: c.digest, Messages: c.msgs, Elided: c.elided}
}

// sdkCases are the views the SDK tests render for triage.
func sdkCases() map[string]sdkCase {
	d := desk()
	toOthers := []transcript.Elision{{From: 6, Through: 8, Count: 2, Readers: []transcript.Author{ana, review}}}
	return map[string]sdkCase{
		"desk":                   {msgs: d},
		"empty":                  {},
		"viewer first":           {msgs: d[1:]},
		"viewer last":            {msgs: d[:2]},
		"only the viewer":        {msgs: []transcript.Message{d[1]}},
		"awkward content":        {msgs: []transcript.Message{{Seq: 9, Author: transcript.Person("x y", "\"Q\"\n"), Content: "</message>\x00\u2028"}}},
		"consecutive peers":      {msgs: []transcript.Message{d[2], d[3], d[4]}},
		"an elision last":        {msgs: d[:2], elided: toOthers},
		"only an elision":        {elided: toOthers},
		"an elision between own": {msgs: []transcript.Message{d[1], {Seq: 9, Author: triage, Content: "again"}}, elided: toOthers},
		"a digest":               {digest: channelDigest(), msgs: d},
		"a digest, viewer first": {digest: threadDigest(), msgs: d[1:]},
		"only a digest":          {digest: channelDigest()},
		"a digest, only you":     {digest: threadDigest(), msgs: []transcript.Message{d[1]}},
	}
}

func TestOpenAIDecodesIntoSDKTypes(t *testing.T) {
	for name, c := range sdkCases() {
		data, err := c.view().ModelInput(render.ModelOpenAI, triage)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var params openai.ChatCompletionNewParams
		if err := json.Unmarshal([]byte(`{"model":"gpt-4o","messages":`+string(data)+`}`), &params); err != nil {
			t.Fatalf("%s: ChatCompletionNewParams rejects %s: %v", name, data, err)
		}
		turns := c.view().Turns(triage)
		if len(params.Messages) != len(turns) {
			t.Fatalf("%s: SDK sees %d messages, want %d", name, len(params.Messages), len(turns))
		}
		for i, m := range params.Messages {
			switch turns[i].Role {
			case render.User:
				if m.OfUser == nil || m.OfUser.Content.OfString.Value != turns[i].Content || m.OfUser.Name.Value != turns[i].Name {
					t.Errorf("%s: message %d decodes as %+v, want user %q", name, i, m, turns[i].Name)
				}
			case render.Assistant:
				if m.OfAssistant == nil || m.OfAssistant.Content.OfString.Value != turns[i].Content {
					t.Errorf("%s: message %d decodes as %+v, want assistant", name, i, m)
				}
			}
			if m.OfSystem != nil || m.OfDeveloper != nil {
				t.Errorf("%s: message %d has a system or developer role", name, i)
			}
		}
	}
}
