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

// invalidf returns an *InvalidMessageError of kind whose Reason is formatted from format and
// args, as fmt.Sprintf does.
func invalidf(kind error, format string, args ...any) error {
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

// InvalidError is the refusal of a value other than a message: an author (Kind is
// ErrInvalidAuthor, from Author.Validate, ParseAuthor, AuthorKind.UnmarshalText and
// Author.UnmarshalJSON), a desk's name (ErrInvalidDesk, from ValidateDesk), a search's
// text (ErrBadSearch, from storage.PlanSearch) or a digest's (digest.ErrRefused, from
// digest.Fold). It matches Kind, and Cause when set. Its
// message is Kind's and Reason: "invalid desk name: empty"; Reason alone says what is wrong
// ("agent without id"), quoting at most the offending character of a desk's name and
// nothing of a search's text.
type InvalidError struct {
	Kind   error  // what was refused: ErrInvalidAuthor, ErrInvalidDesk, ErrBadSearch or digest.ErrRefused
	Reason string // what is wrong
	Cause  error  // the error that found the fault (an author's JSON decoding error, a digest text's *InvalidMessageError), or nil
}

// refusedf returns an *InvalidError of kind whose Reason is formatted from format and args,
// as fmt.Sprintf does.
func refusedf(kind error, format string, args ...any) error {
	return &InvalidError{Kind: kind, Reason: fmt.Sprintf(format, args...)}
}

func (e *InvalidError) Error() string { return e.Kind.Error() + ": " + e.Reason }

// Unwrap returns Kind and Cause (when set).
func (e *InvalidError) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}
