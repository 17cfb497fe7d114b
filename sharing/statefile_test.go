package sharing_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// TestStateFile: a missing file is a viewer that has seen nothing; a written state reads
// back as it was; content that is no state, JSON or not, is a *StateError in the JSON's
// terms, and a file that cannot be read is the read's error.
func TestStateFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	conv := transcript.Conversation{Desk: "eng", Thread: 3}
	if s, err := sharing.ReadStateFile(path, conv); err != nil || s.Conversation != conv || s.Watermark != 0 {
		t.Fatalf("ReadStateFile of a missing file = %+v, %v; want Initialized(conv, 0)", s, err)
	}
	want := sharing.State{Conversation: conv, Watermark: 7, Present: []transcript.Sequence{9}}.For(transcript.Agent("triage", "Triage"))
	if err := sharing.WriteStateFile(path, want); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); !strings.HasSuffix(string(data), "}\n") || !strings.Contains(string(data), "\n  \"watermark\": 7") {
		t.Errorf("the file is not indented JSON ending in a line break:\n%s", data)
	}
	got, err := sharing.ReadStateFile(path, transcript.Conversation{Desk: "other"})
	if err != nil || got.Conversation != want.Conversation || got.Watermark != 7 || len(got.Present) != 1 || got.Viewer != want.Viewer {
		t.Errorf("ReadStateFile = %+v, %v; want %+v", got, err, want)
	}

	for content, wantProblem := range map[string]string{
		"{":                 "not JSON: unexpected end of JSON input (at byte 1)",
		`{"watermark": -4}`: "number -4, want a whole number, 0 or more",
	} {
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := sharing.ReadStateFile(path, conv)
		se, ok := errors.AsType[*sharing.StateError](err)
		if !ok || se.Problem != wantProblem || !errors.Is(err, sharing.ErrInvalidState) {
			t.Errorf("ReadStateFile of %q = %v, want a *StateError saying %q", content, err, wantProblem)
		}
	}
	if _, err := sharing.ReadStateFile(dir, conv); err == nil || errors.As(err, new(*sharing.StateError)) {
		t.Errorf("ReadStateFile of a directory = %v, want the read's error", err)
	}
}

// TestMismatch: a state of another conversation names both; a state of another viewer names
// its viewer; a state that may serve the query names nothing.
func TestMismatch(t *testing.T) {
	eng, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 4}
	triage, review := transcript.Agent("triage", ""), transcript.Agent("review", "Reviewer")
	s := sharing.Initialized(eng, 3).For(triage)
	if m := s.Mismatch(eng, transcript.Agent("triage", "Triage")); m != (sharing.Mismatch{}) {
		t.Errorf("Mismatch of the state's own query = %+v, want none", m)
	}
	m := s.Mismatch(thread, review)
	if m.Conversation == nil || *m.Conversation != thread || m.StateConversation == nil || *m.StateConversation != eng {
		t.Errorf("Mismatch of another conversation = %+v, want the asked %v and the state's %v", m, thread, eng)
	}
	if m.StateViewer == nil || !m.StateViewer.Same(triage) {
		t.Errorf("Mismatch of another viewer = %v, want the state's %v", m.StateViewer, triage)
	}
	if m := sharing.Initialized(eng, 3).Mismatch(eng, review); m.StateViewer != nil {
		t.Errorf("a state that names no viewer mismatches %v: %v", review, m.StateViewer)
	}
}
