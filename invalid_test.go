package transcript_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestValidateNewSaysEachThingOnce: ValidateNew's refusals name no sentinel's text beside
// their reason, nor the package's name, and still match the sentinels.
func TestValidateNewSaysEachThingOnce(t *testing.T) {
	bot := transcript.Agent("bot", "Bot")
	cases := []struct {
		name string
		m    transcript.Message
		want string
		is   []error
	}{
		{"the author in the audience", transcript.Message{Author: bot, Audience: []transcript.Author{bot}},
			"audience entry 0 (agent:bot) is the author itself", []error{transcript.ErrInvalidAudience}},
		{"a reader twice", transcript.Message{Author: bot, Audience: []transcript.Author{transcript.Agent("triage", ""), transcript.Agent("triage", "T")}},
			"audience lists agent:triage twice", []error{transcript.ErrInvalidAudience}},
		{"an invalid entry", transcript.Message{Author: bot, Audience: []transcript.Author{transcript.Agent("", "x")}},
			"audience entry 0: invalid author: agent without id", []error{transcript.ErrInvalidAudience, transcript.ErrInvalidAuthor}},
		{"an invalid author", transcript.Message{Author: transcript.Agent("", "x")},
			"invalid author: agent without id", []error{transcript.ErrInvalidAuthor}},
		{"a seq", transcript.Message{Author: bot, Seq: 3},
			"seq 3 set by the caller (the log assigns it)", nil},
		{"a long key", transcript.Message{Author: bot, Key: strings.Repeat("k", transcript.MaxKeyLen+1)},
			"key of 257 bytes, over the limit of 256", nil},
	}
	for _, c := range cases {
		err := c.m.ValidateNew()
		if err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
			continue
		}
		for _, target := range append(c.is, transcript.ErrInvalidMessage) {
			if !errors.Is(err, target) {
				t.Errorf("%s: %v does not match %v", c.name, err, target)
			}
		}
		if invalid, ok := errors.AsType[*transcript.InvalidMessageError](err); !ok || invalid.Reason != c.want {
			t.Errorf("%s: %#v, want an *InvalidMessageError whose Reason is its message", c.name, err)
		}
	}
}
