package sharing_test

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// viewerDesk is a desk of 43 rows by Ana, the 41st of them by the triage agent, as in a
// state file of triage's handed to the review agent: triage's state lists #41 as present.
func viewerDesk(t *testing.T) *memlog.Log {
	t.Helper()
	ana, triage := transcript.Person("ana", "Ana"), transcript.Agent("triage", "Triage")
	rows := make([]transcript.Message, 43)
	for i := range rows {
		rows[i] = transcript.Message{Seq: transcript.Sequence(i + 1), Author: ana, Content: "news"}
	}
	rows[40].Author, rows[40].Content = triage, "triage's reply"
	log, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	return log
}

// TestPrepareStateOfAnotherViewer: a state that names its viewer is
// ConversationChanged, without a read, for any other viewer (labels play no part), and
// gives the delta it gave its own viewer; a state that names none is taken as it is; a
// delta's Next names its query's viewer, without the label.
func TestPrepareStateOfAnotherViewer(t *testing.T) {
	log := viewerDesk(t)
	triage, review := transcript.Agent("triage", "Triage"), transcript.Agent("review", "Review")

	// triage's turn: the delta up to #40, then its reply #41 noted present.
	plan, err := sharing.Prepare(t.Context(), log, sharing.Query{Desired: eng, Current: eng, State: sharing.Initialized(eng, 0), Before: 41, Viewer: triage})
	if err != nil || plan.Reinitialize != 0 {
		t.Fatalf("triage's first delta: %+v, %v", plan.Reinitialize, err)
	}
	next := plan.Delta.Next
	if want := transcript.Agent("triage", ""); next.Viewer != want {
		t.Fatalf("Next.Viewer = %#v, want triage's identity %#v", next.Viewer, want)
	}
	if err := next.NotePresent(41); err != nil {
		t.Fatal(err)
	}

	for _, v := range []transcript.Author{review, transcript.Agent("review", ""), transcript.Person("triage", "Triage"), transcript.Operator(), {}} {
		counted := &readCounter{Log: log}
		plan, err := sharing.Prepare(t.Context(), counted, sharing.Query{Desired: eng, Current: eng, State: next, Viewer: v})
		if err != nil || plan.Reinitialize != sharing.ConversationChanged || len(plan.Delta.Messages) != 0 || plan.Delta.Next.Viewer != (transcript.Author{}) {
			t.Errorf("triage's state for %v: %+v, %v; want ConversationChanged and no delta", v, plan, err)
		}
		if counted.reads != 0 {
			t.Errorf("triage's state for %v: %d reads, want none", v, counted.reads)
		}
	}

	// triage again, under another label: #42 and #43, never its own #41.
	plan, err = sharing.Prepare(t.Context(), log, sharing.Query{Desired: eng, Current: eng, State: next, Viewer: transcript.Agent("triage", "Triage (renamed)")})
	if err != nil || plan.Reinitialize != 0 {
		t.Fatalf("triage's state for triage: %+v, %v", plan.Reinitialize, err)
	}
	if got := seqsOf(plan.Delta.Messages); !slices.Equal(got, []transcript.Sequence{42, 43}) {
		t.Errorf("triage's delta = %v, want [42 43]", got)
	}

	// A state that names no viewer is anyone's: review gets what it holds, #41 left out.
	anyones := next
	anyones.Viewer = transcript.Author{}
	plan, err = sharing.Prepare(t.Context(), log, sharing.Query{Desired: eng, Current: eng, State: anyones, Viewer: review})
	if err != nil || plan.Reinitialize != 0 {
		t.Fatalf("a state without a viewer: %+v, %v", plan.Reinitialize, err)
	}
	if got := seqsOf(plan.Delta.Messages); !slices.Equal(got, []transcript.Sequence{42, 43}) || plan.Delta.Next.Viewer != transcript.Agent("review", "") {
		t.Errorf("a state without a viewer for review: %v, next viewer %v; want [42 43] and review", got, plan.Delta.Next.Viewer)
	}

	// Every Next names the viewer: the empty delta at the watermark, and a delta cut by a
	// byte budget.
	at, err := sharing.Prepare(t.Context(), log, sharing.Query{Desired: eng, Current: eng, State: sharing.Initialized(eng, 43), Before: 43, Viewer: review})
	if err != nil || at.Delta.Next.Viewer != transcript.Agent("review", "") {
		t.Errorf("the empty delta at the watermark: next viewer %v, %v; want review", at.Delta.Next.Viewer, err)
	}
	cut, err := sharing.Prepare(t.Context(), log, sharing.Query{Desired: eng, Current: eng, State: sharing.Initialized(eng, 0), Viewer: review, MaxBytes: 10})
	if err != nil || cut.Delta.Remaining == 0 || cut.Delta.Next.Viewer != transcript.Agent("review", "") {
		t.Errorf("a delta within 10 bytes: remaining %d, next viewer %v, %v; want some left and review", cut.Delta.Remaining, cut.Delta.Next.Viewer, err)
	}
	if p := cut.Delta.Prefix(0, sharing.Initialized(eng, 0)); p.Next.Viewer != transcript.Agent("review", "") {
		t.Errorf("Prefix(0).Next.Viewer = %v, want review", p.Next.Viewer)
	}
}

// TestStateViewerJSON: a state's viewer is written as an author, left out when zero, read
// back (null as none), and a viewer that is no participant is an ErrInvalidState naming
// "viewer", with the state unchanged.
func TestStateViewerJSON(t *testing.T) {
	s := sharing.State{Conversation: eng, Watermark: 40, Present: []transcript.Sequence{41}, Viewer: transcript.Agent("triage", "")}
	data, err := json.Marshal(s)
	want := `{"conversation":{"desk":"eng"},"watermark":40,"present":[41],"viewer":{"type":"agent","id":"triage"}}`
	if err != nil || string(data) != want {
		t.Fatalf("Marshal = %s, %v; want %s", data, err, want)
	}
	var back sharing.State
	if err := json.Unmarshal(data, &back); err != nil || back.Viewer != s.Viewer || back.Watermark != 40 || !slices.Equal(back.Present, s.Present) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	if err := json.Unmarshal([]byte(`{"conversation":{"desk":"eng"},"watermark":1,"viewer":null}`), &back); err != nil || back.Viewer != (transcript.Author{}) || back.Watermark != 1 {
		t.Errorf("a null viewer: %+v, %v; want none", back, err)
	}
	err = json.Unmarshal([]byte(`{"conversation":{"desk":"eng"},"watermark":-4}`), &back)
	if se, ok := errors.AsType[*sharing.StateError](err); !ok || se.Member != "watermark" {
		t.Errorf("a watermark of -4: %v, want a StateError naming watermark", err)
	}
	op, _ := json.Marshal(sharing.State{Conversation: eng, Viewer: transcript.Operator()})
	if want := `{"conversation":{"desk":"eng"},"watermark":0,"present":[],"viewer":{"type":"operator"}}`; string(op) != want {
		t.Errorf("Marshal(operator's) = %s, want %s", op, want)
	}

	for _, bad := range []string{
		`{"conversation":{"desk":"eng"},"watermark":1,"viewer":{"type":"robot","id":"x"}}`,
		`{"conversation":{"desk":"eng"},"watermark":1,"viewer":{"type":"agent"}}`,
		`{"conversation":{"desk":"eng"},"watermark":1,"viewer":{"type":"operator","id":"x"}}`,
		`{"conversation":{"desk":"eng"},"watermark":1,"viewer":"agent:triage"}`,
	} {
		kept := sharing.State{Conversation: transcript.Conversation{Desk: "keep"}, Watermark: 7, Viewer: transcript.Agent("keep", "")}
		err := json.Unmarshal([]byte(bad), &kept)
		se, ok := errors.AsType[*sharing.StateError](err)
		if !errors.Is(err, sharing.ErrInvalidState) || !ok || se.Member != "viewer" {
			t.Errorf("%s: %v, want an ErrInvalidState naming viewer", bad, err)
		} else if strings.Contains(err.Error(), "json:") || strings.Contains(err.Error(), "transcript.") || strings.Contains(err.Error(), "Go ") {
			t.Errorf("%s: the error shows Go's terms: %v", bad, err)
		}
		if kept.Conversation.Desk != "keep" || kept.Watermark != 7 || kept.Viewer != transcript.Agent("keep", "") {
			t.Errorf("%s: the state changed on error: %+v", bad, kept)
		}
	}
}

// TestBookViewer: a book keeps a state's viewer by identity, joins a state that names none
// with one that does, refuses to acknowledge a state of another viewer, and tells books
// apart by their viewers.
func TestBookViewer(t *testing.T) {
	triage := transcript.Agent("triage", "Triage")
	named := sharing.State{Conversation: eng, Watermark: 5, Present: []transcript.Sequence{7}, Viewer: triage}
	b, err := sharing.Book{}.Put(sharing.Initialized(eng, 3))
	if err != nil {
		t.Fatal(err)
	}
	b, err = b.Acknowledge(named)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ := b.Lookup(eng)
	if s.Viewer != transcript.Agent("triage", "") || s.Watermark != 5 || !slices.Equal(s.Present, []transcript.Sequence{7}) {
		t.Errorf("after acknowledging triage's state over none: %+v, want triage's identity, watermark 5, present [7]", s)
	}
	b, err = b.Acknowledge(sharing.Initialized(eng, 6))
	if s, _, _ := b.Lookup(eng); err != nil || s.Viewer != transcript.Agent("triage", "") || s.Watermark != 6 {
		t.Errorf("after acknowledging a state without a viewer: %+v, %v; want triage's, watermark 6", s, err)
	}
	other := named
	other.Viewer = transcript.Agent("review", "")
	got, err := b.Acknowledge(other)
	if !errors.Is(err, sharing.ErrInvalidBook) || !got.Equal(b) {
		t.Errorf("acknowledging review's state over triage's: %v, want ErrInvalidBook and the book unchanged", err)
	}
	anon, _ := sharing.Book{}.Put(sharing.Initialized(eng, 6))
	if anon.Equal(b) {
		t.Error("a book without a viewer equals one of triage's")
	}
	data, err := json.Marshal(b)
	var back sharing.Book
	if err != nil || json.Unmarshal(data, &back) != nil || !back.Equal(b) {
		t.Errorf("a book with a viewer does not round-trip: %s, %v", data, err)
	}
}
