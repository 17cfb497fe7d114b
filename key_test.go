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
		err := transcript.Message{Author: transcript.Operator(), Content: "x", Key: c.key}.ValidateNew()
		if (err == nil) != c.ok || (err != nil && !errors.Is(err, transcript.ErrInvalidMessage)) {
			t.Errorf("key %q: %v, want ok %v", c.key, err, c.ok)
		}
	}
}
