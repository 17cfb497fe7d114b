package main

import (
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
