package sharing_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

var eng = transcript.Conversation{Desk: "eng"}

func seqRange(from, n int) []transcript.Sequence {
	out := make([]transcript.Sequence, n)
	for i := range out {
		out[i] = transcript.Sequence(from + i)
	}
	return out
}

func TestNotePresent(t *testing.T) {
	s := sharing.Initialized(eng, 10)
	for _, seq := range []transcript.Sequence{14, 12, 14, 10, 3, 0, 13} {
		if err := s.NotePresent(seq); err != nil {
			t.Fatalf("NotePresent(%d): %v", seq, err)
		}
	}
	if want := []transcript.Sequence{12, 13, 14}; !slices.Equal(s.Present, want) {
		t.Errorf("Present = %v, want %v", s.Present, want)
	}
	if s.Watermark != 10 {
		t.Errorf("NotePresent moved the watermark to %d", s.Watermark)
	}
}

func TestNotePresentFull(t *testing.T) {
	s := sharing.State{Conversation: eng, Watermark: 100, Present: seqRange(101, sharing.PresentSetLimit)}
	before := slices.Clone(s.Present)
	for _, seq := range []transcript.Sequence{101, 150, 90} { // present or at/below the watermark
		if err := s.NotePresent(seq); err != nil {
			t.Errorf("NotePresent(%d) on a full set: %v, want a no-op", seq, err)
		}
	}
	err := s.NotePresent(500)
	var pe *sharing.PresentSetError
	if !errors.As(err, &pe) || !errors.Is(err, sharing.ErrPresentSetFull) || pe.Limit != sharing.PresentSetLimit || pe.Seq != 500 {
		t.Fatalf("NotePresent beyond a full set: %v, want a PresentSetError{64, 500}", err)
	}
	if !slices.Equal(s.Present, before) || s.Watermark != 100 {
		t.Errorf("state changed on error: %+v", s)
	}

	over := sharing.State{Watermark: 0, Present: seqRange(1, sharing.PresentSetLimit+1)}
	if err := over.NotePresent(1); !errors.Is(err, sharing.ErrPresentSetTooLarge) {
		t.Errorf("NotePresent on an oversized state: %v, want ErrPresentSetTooLarge", err)
	}
	if len(over.Present) != sharing.PresentSetLimit+1 {
		t.Errorf("oversized state changed on error")
	}
}

func TestNotePresentDoesNotWriteSharedArrays(t *testing.T) {
	backing := make([]transcript.Sequence, 2, 8)
	backing[0], backing[1] = 5, 9
	a := sharing.State{Watermark: 1, Present: backing}
	b := a // a copy shares the array
	if err := b.NotePresent(7); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Present, []transcript.Sequence{5, 9}) || !slices.Equal(backing[:3], []transcript.Sequence{5, 9, 0}) {
		t.Errorf("NotePresent on a copy changed the original: %v (array %v)", a.Present, backing[:3])
	}
	if !slices.Equal(b.Present, []transcript.Sequence{5, 7, 9}) {
		t.Errorf("copy's Present = %v", b.Present)
	}
}

func TestStateJSON(t *testing.T) {
	s := sharing.State{Conversation: transcript.Conversation{Desk: "eng", Thread: 4}, Watermark: 10, Present: []transcript.Sequence{11, 15}}
	data, err := json.Marshal(s)
	want := `{"conversation":{"desk":"eng","thread":4},"watermark":10,"present":[11,15]}`
	if err != nil || string(data) != want {
		t.Fatalf("Marshal = %s, %v; want %s", data, err, want)
	}
	var back sharing.State
	if err := json.Unmarshal(data, &back); err != nil || back.Conversation != s.Conversation || back.Watermark != 10 || !slices.Equal(back.Present, s.Present) {
		t.Errorf("round trip = %+v, %v", back, err)
	}
	empty, _ := json.Marshal(sharing.Initialized(eng, 3))
	if string(empty) != `{"conversation":{"desk":"eng"},"watermark":3,"present":[]}` {
		t.Errorf("Marshal(initialized) = %s", empty)
	}
	held := sharing.Initialized(eng, 30).WithDigest(&transcript.Digest{Through: 12})
	data, err = json.Marshal(held)
	if want := `{"conversation":{"desk":"eng"},"watermark":30,"present":[],"digest":12}`; err != nil || string(data) != want {
		t.Errorf("Marshal(with a digest) = %s, %v; want %s", data, err, want)
	}
	back = sharing.State{}
	if err := json.Unmarshal(data, &back); err != nil || back.Digest != 12 || back.Watermark != 30 {
		t.Errorf("round trip of a state with a digest = %+v, %v", back, err)
	}
	if none := held.WithDigest(nil); none.Digest != 0 {
		t.Errorf("WithDigest(nil) = %+v, want no digest", none)
	}
}

func TestStateJSONRejects(t *testing.T) {
	big, _ := json.Marshal(seqRange(11, sharing.PresentSetLimit+1))
	tests := []struct {
		name string
		json string
		want error
	}{
		{"oversized", `{"conversation":{"desk":"eng"},"watermark":10,"present":` + string(big) + `}`, sharing.ErrPresentSetTooLarge},
		{"unsorted", `{"conversation":{"desk":"eng"},"watermark":10,"present":[13,12]}`, sharing.ErrInvalidState},
		{"duplicate", `{"conversation":{"desk":"eng"},"watermark":10,"present":[12,12]}`, sharing.ErrInvalidState},
		{"at the watermark", `{"conversation":{"desk":"eng"},"watermark":10,"present":[10,12]}`, sharing.ErrInvalidState},
		{"below the watermark", `{"conversation":{"desk":"eng"},"watermark":10,"present":[3]}`, sharing.ErrInvalidState},
	}
	for _, tt := range tests {
		s := sharing.Initialized(transcript.Conversation{Desk: "keep"}, 1)
		if err := json.Unmarshal([]byte(tt.json), &s); !errors.Is(err, tt.want) {
			t.Errorf("%s: err = %v, want %v", tt.name, err, tt.want)
		}
		if s.Conversation.Desk != "keep" || s.Watermark != 1 {
			t.Errorf("%s: state changed on error: %+v", tt.name, s)
		}
	}
	var s sharing.State
	if err := json.Unmarshal([]byte(`{"watermark":"x"}`), &s); err == nil {
		t.Error("a malformed watermark decoded")
	}
	kept := sharing.State{Watermark: 7, Present: []transcript.Sequence{9}}
	if err := json.Unmarshal([]byte(`null`), &kept); err != nil || kept.Watermark != 7 || len(kept.Present) != 1 {
		t.Errorf("null changed the state: %+v, %v", kept, err)
	}
}

func TestReasonText(t *testing.T) {
	for r, name := range map[sharing.Reason]string{
		sharing.ConversationChanged:  "conversation_changed",
		sharing.GapTooLarge:          "gap_too_large",
		sharing.WatermarkUnavailable: "watermark_unavailable",
		sharing.StateEvicted:         "state_evicted",
		sharing.DigestCorrected:      "digest_corrected",
	} {
		text, err := r.MarshalText()
		if r.String() != name || string(text) != name || err != nil {
			t.Errorf("%d: String %q, MarshalText %q, %v; want %q", int(r), r.String(), text, err, name)
		}
		var back sharing.Reason
		if err := back.UnmarshalText([]byte(name)); err != nil || back != r {
			t.Errorf("UnmarshalText(%q) = %v, %v", name, back, err)
		}
	}
	for _, r := range []sharing.Reason{sharing.DigestCorrected + 1, 9} {
		if _, err := r.MarshalText(); err == nil || r.String() != fmt.Sprintf("Reason(%d)", int(r)) {
			t.Errorf("Reason %d: MarshalText did not fail (%v), or String %q", int(r), err, r.String())
		}
	}
	var r sharing.Reason
	if err := r.UnmarshalText([]byte("gap")); err == nil {
		t.Error(`UnmarshalText("gap") did not fail`)
	}
	plan, _ := json.Marshal(sharing.Plan{Reinitialize: sharing.GapTooLarge})
	if want := `{"reinitialize":"gap_too_large","delta":{"messages":null,"next":{"conversation":{"desk":""},"watermark":0,"present":[]}}}`; string(plan) != want {
		t.Errorf("plan JSON = %s, want %s", plan, want)
	}
}
