package render

import (
	"testing"

	"github.com/sharedesk/transcript"
)

func TestConversationName(t *testing.T) {
	for c, want := range map[transcript.Conversation]string{
		{Desk: "eng"}:               `the channel of desk "eng"`,
		{Desk: "eng", Thread: 12}:   `thread #12 of desk "eng"`,
		{Desk: "a\"b\n", Thread: 3}: `thread #3 of desk "a\"b\n"`,
	} {
		if got := ConversationName(c); got != want {
			t.Errorf("ConversationName(%+v) = %s, want %s", c, got, want)
		}
	}
}
