package render_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// TestModelInput: the bytes the command prints and the service serves are the format's
// document and a newline; an unknown format is an error naming it.
func TestModelInput(t *testing.T) {
	viewer := transcript.Agent("triage", "Triage")
	msgs := []transcript.Message{
		{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "Deploy #41 is red"},
		{Seq: 3, Parent: 1, Author: viewer, Content: "The migration timed out"},
	}
	elided := []transcript.Elision{{From: 2, Through: 2, Count: 1, Readers: []transcript.Author{transcript.Agent("review", "Reviewer")}}}
	for format, doc := range map[render.ModelFormat]func(transcript.Author, []transcript.Message, ...transcript.Elision) ([]byte, error){
		render.ModelOpenAI:    render.OpenAI,
		render.ModelAnthropic: render.Anthropic,
	} {
		want, err := doc(viewer, msgs, elided...)
		if err != nil {
			t.Fatal(err)
		}
		got, err := render.ModelInput(format, viewer, msgs, elided...)
		if err != nil || string(got) != string(want)+"\n" {
			t.Errorf("ModelInput(%s) = %q, %v; want %q and a newline", format, got, err, want)
		}
	}
	if _, err := render.ModelInput("text", viewer, msgs); err == nil || !strings.Contains(err.Error(), `"text"`) {
		t.Errorf("ModelInput(text) = %v, want an error naming the format", err)
	}
}

// TestModelInputNotHTMLEscaped: the model formats write <, > and & as themselves, so that a
// person reads the envelopes (and the content's own escapes) as the model does, and the
// bytes still decode to the turns' contents.
func TestModelInputNotHTMLEscaped(t *testing.T) {
	viewer := transcript.Agent("triage", "Triage")
	msgs := []transcript.Message{{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "It locks <users> & sessions."}}
	elided := []transcript.Elision{{From: 2, Through: 2, Count: 1, Readers: []transcript.Author{transcript.Operator(), viewer}}}
	turns := render.Turns(viewer, msgs, elided...)
	for _, format := range []render.ModelFormat{render.ModelOpenAI, render.ModelAnthropic} {
		got, err := render.ModelInput(format, viewer, msgs, elided...)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`<message seq=\"1\"`, `&lt;users&gt; &amp; sessions.`, `</message>`, `<elided from=\"2\"`} {
			if !strings.Contains(string(got), want) {
				t.Errorf("ModelInput(%s) = %s, want it to hold %s", format, got, want)
			}
		}
		if strings.Contains(string(got), `\u00`) {
			t.Errorf("ModelInput(%s) = %s, HTML-escaped", format, got)
		}
		var doc any
		if err := json.Unmarshal(got, &doc); err != nil {
			t.Fatalf("ModelInput(%s) = %s: not JSON: %v", format, got, err)
		}
		texts := strings.Join(jsonStrings(doc), "\n")
		for _, turn := range turns {
			if !strings.Contains(texts, turn.Content) {
				t.Errorf("ModelInput(%s)'s strings are %q, without the turn %q", format, texts, turn.Content)
			}
		}
	}
}

// jsonStrings returns the strings of a decoded JSON value, in document order for arrays.
func jsonStrings(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, jsonStrings(x)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, x := range v {
			out = append(out, jsonStrings(x)...)
		}
		return out
	}
	return nil
}
