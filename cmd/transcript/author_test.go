package main

import (
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
)

func TestParseAuthor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want transcript.Author
	}{
		{"operator", transcript.Operator()},
		{"operator:Olga", transcript.Author{Kind: transcript.KindOperator, Label: "Olga"}},
		{"agent:triage", transcript.Agent("triage", "")},
		{"agent:triage:Triage", transcript.Agent("triage", "Triage")},
		{"agent:triage:Triage: the bot", transcript.Agent("triage", "Triage: the bot")},
		{"person:ana:Ana Ruiz", transcript.Person("ana", "Ana Ruiz")},
		{"system:workflow:CI", transcript.System("workflow", "CI")},
	} {
		got, err := parseAuthor(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("parseAuthor(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "robot:r2", "agent", "agent:", "agent::Label", "person", "system", "Agent:x", "operator-x"} {
		if got, err := parseAuthor(in); err == nil {
			t.Errorf("parseAuthor(%q) = %+v, want an error", in, got)
		}
	}
}

// TestParseAuthorSuggestsTheKindMeant: a participant whose kind is a typo of one is refused
// with the participant meant, when that is one; any other refusal suggests nothing.
func TestParseAuthorSuggestsTheKindMeant(t *testing.T) {
	for in, meant := range map[string]string{
		"agnet:triage":  "agent:triage",
		"Agent:x":       "agent:x",
		"persn:ana:Ana": "person:ana:Ana",
		"opertor":       "operator",
		"robot:r2":      "",
		"agnet":         "",
		"agnet:":        "",
	} {
		_, err := parseAuthor(in)
		want := fmt.Sprintf("%q is not %s", in, authorSyntax)
		if meant != "" {
			want += "; did you mean " + meant + "?"
		}
		if err == nil || err.Error() != want {
			t.Errorf("parseAuthor(%q) = %v, want %s", in, err, want)
		}
	}
}
