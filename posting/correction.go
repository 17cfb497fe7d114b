package posting

import (
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
)

// Correction is an edit or a redaction as a transport decoded it. The author is not part of
// it: it is the participant the transport authenticated.
type Correction struct {
	Target  transcript.Sequence // the row corrected
	Redact  bool                // a redaction, which erases the target; else an edit
	Content string              // an edit's new content; empty for a redaction
	Key     string
}

// PrepareCorrection turns c, by author, into the correction to append: an edit, or a
// redaction with no content. It checks that an edit's content is not blank (Blank: to erase
// a row, redact it) and transcript.Message.ValidateNew; whether the author may correct the
// target is the correction rule, which the store applies in the transaction that writes the
// correction (see transcript.Message.ResolveCorrection), and Refusal words its refusals. A
// refusal is an *Error.
func PrepareCorrection(author transcript.Author, c Correction) (transcript.Message, error) {
	m := transcript.Message{Author: author, Corrects: c.Target, Redacted: c.Redact, Content: c.Content, Key: c.Key}
	if _, batch := c.Target.BatchIndex(); c.Target == 0 || batch {
		return m, &Error{Kind: NoTarget, Reason: fmt.Sprintf("no message %d that the author can read", c.Target)}
	}
	if !c.Redact && (transcript.Message{Content: c.Content}).Blank() {
		return m, &Error{Kind: Blank, Reason: fmt.Sprintf("the new content of message %d is blank (empty or white space only): give it text, or redact the message to erase it", c.Target)}
	}
	if err := m.ValidateNew(); err != nil {
		kind := InvalidMessage
		if errors.Is(err, transcript.ErrTooLarge) {
			kind = TooLarge
		}
		return m, &Error{Kind: kind, Reason: reasonOf(err), Err: err}
	}
	return m, nil
}
