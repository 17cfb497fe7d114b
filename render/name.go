package render

import (
	"fmt"

	"github.com/sharedesk/transcript"
)

// ConversationName names c in words, for a person or a model to read: `the channel of desk
// "eng"` or `thread #12 of desk "eng"`, the desk quoted as Go quotes a string.
func ConversationName(c transcript.Conversation) string {
	if c.IsChannel() {
		return fmt.Sprintf("the channel of desk %q", c.Desk)
	}
	return fmt.Sprintf("thread #%d of desk %q", c.Thread, c.Desk)
}
