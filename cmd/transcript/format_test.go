package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/render"
)

// TestColorTextElision: on a colour terminal the text format paints an elision's line dim,
// headers in their author's colour, and the viewer's own bold green; through a pipe it
// paints nothing.
func TestColorTextElision(t *testing.T) {
	msgs := []transcript.Message{
		{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "hello"},
		{Seq: 3, Author: transcript.Agent("y", "Y"), Content: "mine"},
	}
	elided := []transcript.Elision{{From: 2, Through: 2, Count: 1, Readers: []transcript.Author{transcript.Operator(), transcript.Agent("triage", "Triage")}}}
	for _, color := range []bool{true, false} {
		var out strings.Builder
		e := &env{stdout: &out, color: color}
		if err := writeView(e, "text", transcript.Agent("y", ""), render.View{Messages: msgs, Elided: elided}, nil); err != nil {
			t.Fatal(err)
		}
		want := "#1 Ana (person:ana)\n    hello\n#2 · 1 message between operator and Triage you cannot read\n#3 Y (agent:y, you)\n    mine\n"
		if color {
			want = console.Yellow + "#1 Ana (person:ana)" + console.Reset + "\n    hello\n" +
				console.Dim + "#2 · 1 message between operator and Triage you cannot read" + console.Reset + "\n" +
				console.Bold + console.Green + "#3 Y (agent:y, you)" + console.Reset + "\n    mine\n"
		}
		if got := out.String(); got != want {
			t.Errorf("text with color=%v:\n got %q\nwant %q", color, got, want)
		}
	}
}

// TestJSONFormatsNotHTMLEscaped: view's JSON formats, which people and models read, write
// <, > and & as themselves (the envelopes, and the escapes the envelope puts in content),
// never as \u003c, \u003e and \u0026, and stay valid JSON.
func TestJSONFormatsNotHTMLEscaped(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	c.ok("append", "--create", "--as", "person:ana", "It locks <users> & sessions.")
	for format, want := range map[string][]string{
		"anthropic": {`<message seq=\"1\"`, `&lt;users&gt; &amp; sessions.`, `</message>`},
		"openai":    {`<message seq=\"1\"`, `&lt;users&gt; &amp; sessions.`, `</message>`},
		"json":      {`"It locks <users> & sessions."`},
	} {
		out := c.ok("view", "--as", "agent:triage", "--format", format)
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("view --format %s does not hold %s literally:\n%s", format, w, out)
			}
		}
		if strings.Contains(out, `\u00`) {
			t.Errorf("view --format %s is HTML-escaped:\n%s", format, out)
		}
		if !json.Valid([]byte(out)) {
			t.Errorf("view --format %s is not JSON:\n%s", format, out)
		}
	}
}
