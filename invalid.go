package transcript

import "fmt"

// InvalidMessageError is the refusal of a message for a fault that has a sentinel of its
// own: it matches ErrInvalidMessage and Kind (such as ErrNoParent), and its message is
// Reason alone, which says what is wrong in words that need neither sentinel's, so that
// the error says each thing once: "parent 9 is not a row of the desk".
type InvalidMessageError struct {
	Kind   error  // the fault's sentinel, matched besides ErrInvalidMessage
	Reason string // what is wrong with the message; never its content
	Cause  error  // the error the fault was found by, matched too, or nil
}

// Invalidf returns an *InvalidMessageError of kind whose Reason is formatted from format and
// args, as fmt.Sprintf does.
func Invalidf(kind error, format string, args ...any) error {
	return &InvalidMessageError{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

func (e *InvalidMessageError) Error() string { return e.Reason }

// Unwrap returns ErrInvalidMessage, Kind and Cause (when set).
func (e *InvalidMessageError) Unwrap() []error {
	if e.Cause != nil {
		return []error{ErrInvalidMessage, e.Kind, e.Cause}
	}
	return []error{ErrInvalidMessage, e.Kind}
}

// InvalidMessage returns err, the refusal of a check such as ValidateDesk, as a log's refusal
// of a message: an *InvalidMessageError that matches ErrInvalidMessage and whatever err
// matches, with err's message.
func InvalidMessage(err error) error {
	return &InvalidMessageError{Kind: err, Reason: err.Error()}
}
