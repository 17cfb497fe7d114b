package transcript_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// TestValidateNewStorable: what no store keeps is ValidateNew's to refuse, each fault with
// its sentinel and a reason that names the field and never quotes it.
func TestValidateNewStorable(t *testing.T) {
	ok := transcript.Message{Author: transcript.Person("p", "P"), Content: "hello"}
	with := func(f func(m *transcript.Message)) transcript.Message {
		m := ok
		f(&m)
		return m
	}
	tests := []struct {
		name   string
		m      transcript.Message
		kind   error
		reason string
	}{
		{"content over MaxContent", with(func(m *transcript.Message) { m.Content = strings.Repeat("x", transcript.MaxContent+1) }), transcript.ErrTooLarge, "content of 1048577 bytes, over the limit of 1048576"},
		{"NUL in the content", with(func(m *transcript.Message) { m.Content = "se\x00cret" }), transcript.ErrText, "content holds a NUL byte at offset 2"},
		{"content not UTF-8", with(func(m *transcript.Message) { m.Content = "se\xffcret" }), transcript.ErrText, "content is not valid UTF-8"},
		{"NUL in the author id", with(func(m *transcript.Message) { m.Author.ID = "p\x00" }), transcript.ErrText, "author id holds a NUL byte"},
		{"author label not UTF-8", with(func(m *transcript.Message) { m.Author.Label = "P\xc3" }), transcript.ErrText, "author label is not valid UTF-8"},
		{"NUL in an audience label", with(func(m *transcript.Message) { m.Audience = []transcript.Author{transcript.Agent("a", "A\x00")} }), transcript.ErrText, "audience entry 0 holds a NUL byte in its label"},
		{"audience id not UTF-8", with(func(m *transcript.Message) {
			m.Audience = []transcript.Author{transcript.Agent("a", "A"), transcript.Agent("\xff", "B")}
		}), transcript.ErrText, "audience entry 1's id is not valid UTF-8"},
		{"at in the year 0", with(func(m *transcript.Message) { m.At = time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC) }), transcript.ErrAt, "outside the years 1 to 9999"},
		{"at in the year 10000", with(func(m *transcript.Message) { m.At = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), transcript.ErrAt, "outside the years 1 to 9999"},
	}
	for _, tt := range tests {
		err := tt.m.ValidateNew()
		if !errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, tt.kind) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: ValidateNew = %v, want ErrInvalidMessage and %v, saying %q", tt.name, err, tt.kind, tt.reason)
		}
		if err != nil && strings.Contains(err.Error(), "cret") {
			t.Errorf("%s: the refusal %q quotes the content", tt.name, err)
		}
	}
	for _, at := range []time.Time{{}, time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)} {
		if err := with(func(m *transcript.Message) { m.At = at }).ValidateNew(); err != nil {
			t.Errorf("at %v: ValidateNew = %v, want nil", at, err)
		}
	}
	if err := with(func(m *transcript.Message) { m.Content = strings.Repeat("é", transcript.MaxContent/2) }).ValidateNew(); err != nil {
		t.Errorf("content of exactly MaxContent bytes: %v", err)
	}
}
