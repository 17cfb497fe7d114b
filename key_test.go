package transcript_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

func TestValidateNewKey(t *testing.T) {
	for _, c := range []struct {
		key string
		ok  bool
	}{
		{"", true},
		{"1712345678.123456", true},
		{"msg 1 — ümlaut ✓", true},
		{strings.Repeat("k", transcript.MaxKeyLen), true},
		{strings.Repeat("é", transcript.MaxKeyLen/2), true},
		{strings.Repeat("k", transcript.MaxKeyLen+1), false},
		{"tab\there", false},
		{"line\nbreak", false},
		{"nul\x00", false},
		{"\u200b", false}, // a format character, not printable
		{"\xff", false},
	} {
		err := transcript.ValidateNew(transcript.Message{Author: transcript.Operator(), Content: "x", Key: c.key})
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, transcript.ErrInvalidMessage)) {
			t.Errorf("key %q: %v, want ok %v", c.key, err, c.ok)
		}
	}
}

func TestMatchKey(t *testing.T) {
	triage := transcript.Agent("triage", "Triage")
	stored := transcript.Message{Seq: 7, Parent: 3, Author: triage, Content: "SECRET", Key: "k", Audience: []transcript.Author{transcript.Operator()}}
	same := stored
	same.Seq, same.Author.Label, same.Audience = 0, "Renamed", []transcript.Author{{Kind: transcript.KindOperator, Label: "Op"}}
	if err := transcript.MatchKey(stored, same); err != nil {
		t.Errorf("MatchKey of the same message: %v", err)
	}
	for name, change := range map[string]func(m *transcript.Message){
		"content":  func(m *transcript.Message) { m.Content = "other" },
		"author":   func(m *transcript.Message) { m.Author = transcript.Agent("review", "Triage") },
		"parent":   func(m *transcript.Message) { m.Parent = 0 },
		"audience": func(m *transcript.Message) { m.Audience = nil },
	} {
		m := same
		change(&m)
		err := transcript.MatchKey(stored, m)
		var ke *transcript.KeyConflictError
		if !errors.As(err, &ke) || !errors.Is(err, transcript.ErrKeyConflict) || ke.Key != "k" || ke.Seq != 7 || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("another %s: %v, want a conflict naming key k and row 7", name, err)
		}
	}
}
