package transcript

import (
	"fmt"
	"strings"
)

// InvalidMessageError is the refusal of a message for a fault that has a sentinel of its
// own: it matches ErrInvalidMessage and Kind (such as ErrNoParent), and its message is
// Reason alone, which says what is wrong in words that need neither sentinel's, so that
// the error says each thing once: "transcript: parent 9 is not a row of the desk".
type InvalidMessageError struct {
	Kind   error  // the fault's sentinel, matched besides ErrInvalidMessage
	Reason string // what is wrong with the message; never its content
}

// Invalidf returns an *InvalidMessageError of kind whose Reason is formatted from format and
// args, as fmt.Sprintf does.
func Invalidf(kind error, format string, args ...any) error {
	return &InvalidMessageError{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

func (e *InvalidMessageError) Error() string { return "transcript: " + e.Reason }

// Unwrap returns ErrInvalidMessage and Kind.
func (e *InvalidMessageError) Unwrap() []error { return []error{ErrInvalidMessage, e.Kind} }

// withoutPrefix returns the message of err without the package name "transcript: " it
// starts with, for an error that wraps it under a prefix of its own.
func withoutPrefix(err error) string { return strings.TrimPrefix(err.Error(), "transcript: ") }

// InvalidMessage returns err, the refusal of a check such as ValidateDesk, as a log's refusal
// of a message: an *InvalidMessageError that matches ErrInvalidMessage and whatever err
// matches, with err's message.
func InvalidMessage(err error) error {
	return &InvalidMessageError{Kind: err, Reason: withoutPrefix(err)}
}
