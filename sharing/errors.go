package sharing

import (
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
)

var (
	// ErrPresentSetTooLarge: a State holds more than PresentSetLimit present entries.
	ErrPresentSetTooLarge = errors.New("sharing: present set larger than its limit")
	// ErrPresentSetFull is matched by the *PresentSetError NotePresent returns when a new
	// sequence does not fit.
	ErrPresentSetFull = errors.New("sharing: present set full")
	// ErrWatermarkRegression: the turn's bound is below the state's watermark.
	ErrWatermarkRegression = errors.New("sharing: bound below the watermark")
	// ErrInvalidState: a State's present set is unsorted, holds duplicates, or holds entries
	// at or below its watermark, or its JSON holds a member of the wrong kind.
	ErrInvalidState = errors.New("sharing: invalid state")
	// ErrInvalidBook: a Book that cannot be, or cannot be stored as, a participant's book
	// on a desk: its JSON holds what no Book does, a state names another desk than the
	// book's, or the desk or participant it is stored under is not one a store keeps
	// (books.ValidateOwner, books.Validate).
	ErrInvalidBook = errors.New("sharing: invalid book")
)

// PresentSetError reports a sequence NotePresent could not record because the present set
// already holds Limit entries. It unwraps to ErrPresentSetFull.
type PresentSetError struct {
	Limit int
	Seq   transcript.Sequence
}

func (e *PresentSetError) Error() string {
	return fmt.Sprintf("sharing: present set full (%d entries): cannot note seq %d", e.Limit, e.Seq)
}

// Unwrap returns ErrPresentSetFull.
func (e *PresentSetError) Unwrap() error { return ErrPresentSetFull }

// StateError reports a State that Prepare cannot use, or JSON that is no State, in the
// JSON's terms: which member is wrong and how, without Go's type names. It unwraps to
// ErrInvalidState or ErrPresentSetTooLarge.
type StateError struct {
	Member  string // the JSON member: "watermark", "present", "conversation.desk"; "" for the whole
	Problem string // what is wrong with it: "number -4, want a whole number, 0 or more"
	Err     error  // ErrInvalidState or ErrPresentSetTooLarge
}

func (e *StateError) Error() string {
	if e.Member == "" {
		return e.Err.Error() + ": " + e.Problem
	}
	return fmt.Sprintf("%v: %q: %s", e.Err, e.Member, e.Problem)
}

// Unwrap returns ErrInvalidState or ErrPresentSetTooLarge.
func (e *StateError) Unwrap() error { return e.Err }
