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

// TestArgumentsDecodedStrictly: arguments whose text is not valid UTF-8 (raw bytes, or an
// escaped lone surrogate) or that give a name twice are refused, not decoded with U+FFFD
// in place of what is wrong or the last of two names kept; the refusal quotes no name.
func TestArgumentsDecodedStrictly(t *testing.T) {
	s, err := schemas()
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"\xff", "\xfe", "\xff\xfe", "\xc0\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82", `\ud800`, `\udc00x`} {
		for _, args := range []string{`{"content":"` + bad + `"}`, `{"content":"x","key":"` + bad + `"}`, `{"content":"x","audience":["agent:` + bad + `"]}`} {
			var in PostMessageArgs
			if err := checkArguments(json.RawMessage(args), s.postArgs, &in); err == nil || !strings.Contains(err.Error(), "UTF-8") {
				t.Errorf("%q: %+v, %v; want an error saying UTF-8", args, in, err)
			}
		}
	}
	var in PostMessageArgs
	if err := checkArguments(json.RawMessage(`{"content":"x","key":"trs_k","key":"trs_k2"}`), s.postArgs, &in); err == nil || strings.Contains(err.Error(), "trs_") {
		t.Errorf("a key twice: %+v, %v; want an error that quotes neither", in, err)
	}
	if err := checkArguments(json.RawMessage(`{"content":"\ud83d\ude00 \ufffd ok","key":"k"}`), s.postArgs, &in); err != nil || in.Content != "😀 \ufffd ok" {
		t.Errorf("valid text with a surrogate pair and U+FFFD itself: %+v, %v", in, err)
	}
}
