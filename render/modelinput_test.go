package render_test

import (
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
