package main

import (
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
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
		if err := writeMessages(e, "text", transcript.Agent("y", ""), msgs, elided, nil); err != nil {
			t.Fatal(err)
		}
		want := "#1 Ana (person:ana)\n    hello\n#2 · 1 message between operator and Triage you cannot read\n#3 Y (agent:y, you)\n    mine\n"
		if color {
			want = ansiYellow + "#1 Ana (person:ana)" + ansiReset + "\n    hello\n" +
				ansiDim + "#2 · 1 message between operator and Triage you cannot read" + ansiReset + "\n" +
				ansiBold + ansiGreen + "#3 Y (agent:y, you)" + ansiReset + "\n    mine\n"
		}
		if got := out.String(); got != want {
			t.Errorf("text with color=%v:\n got %q\nwant %q", color, got, want)
		}
	}
}
