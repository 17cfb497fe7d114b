package deskmcp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestToolResultNotHTMLEscaped: a result's structured content holds <, > and & as
// themselves, and is JSON of the value the tool returned.
func TestToolResultNotHTMLEscaped(t *testing.T) {
	m := transcript.Message{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "It locks <users> & sessions."}
	res, err := toolResult("read_desk", "text", ReadDeskResult{Messages: []transcript.Message{m}, Head: 1})
	if err != nil {
		t.Fatal(err)
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		t.Fatalf("structured content is a %T, want json.RawMessage", res.StructuredContent)
	}
	if want := `"content":"It locks <users> & sessions."`; !strings.Contains(string(raw), want) {
		t.Errorf("structured content = %s, want it to hold %s", raw, want)
	}
	var back ReadDeskResult
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Messages) != 1 || back.Messages[0].Content != m.Content {
		t.Errorf("structured content %s decodes to %+v, %v", raw, back, err)
	}
}
