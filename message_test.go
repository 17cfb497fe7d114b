package transcript_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

func TestMessageJSON(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	m := transcript.Message{Seq: 7, Parent: 3, Author: transcript.Agent("a", "A"), Content: "hi", At: at}
	got, err := json.Marshal(m)
	want := `{"seq":7,"parent":3,"author":{"type":"agent","id":"a","label":"A"},"content":"hi","at":"2026-11-30T09:00:00Z"}`
	if err != nil || string(got) != want {
		t.Fatalf("Marshal = %s, %v; want %s", got, err, want)
	}
	var back transcript.Message
	if err := json.Unmarshal(got, &back); err != nil || !gocmp.Equal(back, m) {
		t.Errorf("round trip = %+v, %v; want %+v", back, err, m)
	}
	root, _ := json.Marshal(transcript.Message{Seq: 1, Author: transcript.Operator(), Content: "x"})
	if string(root) != `{"seq":1,"author":{"type":"operator"},"content":"x"}` {
		t.Errorf("a root without time: %s", root)
	}
	if err := json.Unmarshal([]byte(`{"seq":1,"author":{"type":"ghost"},"content":"x"}`), &back); !errors.Is(err, transcript.ErrInvalidAuthor) {
		t.Errorf("message with an unknown author type: err = %v", err)
	}
}

func TestBlank(t *testing.T) {
	for content, blank := range map[string]bool{
		"": true, " ": true, "\t\n\v\f\r ": true, "\u00a0\u2003\u3000": true, "\u0085": true,
		"x": false, "  x  ": false, "\u00a0é": false, "\u200b": false, "\xff": false,
	} {
		if got := (transcript.Message{Content: content}).Blank(); got != blank {
			t.Errorf("Blank(%q) = %v, want %v", content, got, blank)
		}
	}
}

func TestValidateNew(t *testing.T) {
	ok := transcript.Message{Author: transcript.Person("p", "P"), Content: "hello"}
	if err := ok.ValidateNew(); err != nil {
		t.Errorf("ValidateNew(valid) = %v", err)
	}
	for name, m := range map[string]transcript.Message{
		"seq set":      {Seq: 3, Author: ok.Author, Content: "x"},
		"bad author":   {Author: transcript.Author{Kind: transcript.KindAgent}, Content: "x"},
		"invalid utf8": {Author: ok.Author, Content: "a\xffb"},
	} {
		if err := m.ValidateNew(); !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s: err = %v, want ErrInvalidMessage", name, err)
		}
	}
}

func FuzzBlank(f *testing.F) {
	for _, s := range []string{"", " x", "\u00a0", "\xff ", "\u2028\u2029"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := (transcript.Message{Content: s}).Blank(), strings.TrimSpace(s) == ""; got != want {
			t.Errorf("Blank(%q) = %v, strings.TrimSpace says %v", s, got, want)
		}
	})
}

func TestBatchParent(t *testing.T) {
	for _, i := range []int{0, 1, 41, 1 << 20} {
		got, ok := transcript.BatchParent(i).BatchIndex()
		if !ok || got != i {
			t.Errorf("BatchParent(%d).BatchIndex() = %d, %v", i, got, ok)
		}
	}
	for _, s := range []transcript.Sequence{0, 1, 1 << 62} {
		if _, ok := s.BatchIndex(); ok {
			t.Errorf("Sequence(%d) reads as a batch parent", s)
		}
	}
}
