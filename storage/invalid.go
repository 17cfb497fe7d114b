package storage

import (
	"fmt"

	"github.com/sharedesk/transcript"
)

// Invalidf returns a refusal of a message for a fault of kind, such as
// transcript.ErrNoParent: a *transcript.InvalidMessageError, matching
// transcript.ErrInvalidMessage and kind, whose Reason is formatted from format and args,
// as fmt.Sprintf does. A store refuses with it what only the store can tell is wrong.
func Invalidf(kind error, format string, args ...any) error {
	return &transcript.InvalidMessageError{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

// InvalidMessage returns err, the refusal of a check such as transcript.ValidateDesk, as a
// refusal of a message: a *transcript.InvalidMessageError that matches
// transcript.ErrInvalidMessage and whatever err matches, with err's message.
func InvalidMessage(err error) error {
	return &transcript.InvalidMessageError{Kind: err, Reason: err.Error()}
}
