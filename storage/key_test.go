package storage_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

func TestMatchKey(t *testing.T) {
	triage := transcript.Agent("triage", "Triage")
	stored := transcript.Message{Seq: 7, Parent: 3, Author: triage, Content: "SECRET", Key: "k", Audience: []transcript.Author{transcript.Operator()}}
	same := stored
	same.Seq, same.Author.Label, same.Audience = 0, "Renamed", []transcript.Author{{Kind: transcript.KindOperator, Label: "Op"}}
	if err := storage.MatchKey(stored, same); err != nil || storage.KeyDifferences(stored, same) != nil {
		t.Errorf("MatchKey of the same message: %v, differences %q", err, storage.KeyDifferences(stored, same))
	}
	other := transcript.Message{Author: transcript.Operator(), Content: "other", Corrects: 2}
	if diff := storage.KeyDifferences(stored, other); !slices.Equal(diff, []string{"author", "parent", "target", "audience", "content"}) {
		t.Errorf("KeyDifferences of another in every field = %q, want all five in order", diff)
	}
	erased := stored
	erased.Redacted, erased.Content = true, ""
	if diff := storage.KeyDifferences(erased, same); diff != nil {
		t.Errorf("KeyDifferences against an erased row = %q, want none: it matches whatever content", diff)
	}
	for name, change := range map[string]func(m *transcript.Message){
		"content":  func(m *transcript.Message) { m.Content = "other" },
		"author":   func(m *transcript.Message) { m.Author = transcript.Agent("review", "Triage") },
		"parent":   func(m *transcript.Message) { m.Parent = 0 },
		"audience": func(m *transcript.Message) { m.Audience = nil },
		"target":   func(m *transcript.Message) { m.Corrects = 5 },
	} {
		m := same
		change(&m)
		if diff := storage.KeyDifferences(stored, m); !slices.Equal(diff, []string{name}) {
			t.Errorf("KeyDifferences of another %s = %q, want just it", name, diff)
		}
		err := storage.MatchKey(stored, m)
		var ke *transcript.KeyConflictError
		if !errors.As(err, &ke) || !errors.Is(err, transcript.ErrKeyConflict) || ke.Key != "k" || ke.Seq != 7 || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("another %s: %v, want a conflict naming key k and row 7", name, err)
		}
	}
}
