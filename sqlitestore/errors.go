package sqlitestore

import (
	"errors"
	"fmt"
)

var (
	// ErrClosed is returned by every method of a Store after Close.
	ErrClosed = errors.New("sqlitestore: store closed")
	// ErrLimit is returned by ReadBefore for a limit below 1.
	ErrLimit = errors.New("sqlitestore: limit must be at least 1")
	// ErrSchemaTooNew is matched by the *SchemaError of a database written by a newer version
	// of this package.
	ErrSchemaTooNew = errors.New("sqlitestore: database schema newer than this package")
	// ErrOption is matched by the error Open returns for an invalid Option.
	ErrOption = errors.New("sqlitestore: invalid option")
)

// AppendError reports a message Append or AppendBatch refused: which desk, which message of
// the batch, and what is wrong with it. Err matches transcript.ErrInvalidMessage, except for
// a message whose Key names a different stored row: then Err is the
// *transcript.KeyConflictError, which matches transcript.ErrKeyConflict and not
// transcript.ErrInvalidMessage (errors.As finds it through the AppendError). Nothing of the
// append or batch was stored.
type AppendError struct {
	Desk  string // the desk appended to, as given
	Index int    // the message's position in AppendBatch's msgs; -1 for Append
	Err   error  // what is wrong: matches transcript.ErrInvalidMessage or transcript.ErrKeyConflict
}

func (e *AppendError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("sqlitestore: append to desk %q: %v", e.Desk, e.Err)
	}
	return fmt.Sprintf("sqlitestore: append batch to desk %q: message %d: %v", e.Desk, e.Index, e.Err)
}

// Unwrap returns what is wrong with the message.
func (e *AppendError) Unwrap() error { return e.Err }

// SchemaError reports a database whose schema version this package does not know: it was
// written by a newer version. Open leaves such a database untouched.
type SchemaError struct {
	Found int // the database's schema version
	Known int // the newest version this package knows (SchemaVersion)
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("sqlitestore: database schema version %d is newer than %d, the newest this package knows", e.Found, e.Known)
}

// Unwrap returns ErrSchemaTooNew.
func (e *SchemaError) Unwrap() error { return ErrSchemaTooNew }
