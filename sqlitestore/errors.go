package sqlitestore

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
)

var (
	// ErrClosed is returned by every method of a Store after Close.
	ErrClosed = errors.New("sqlitestore: store closed")
	// ErrLimit is returned by ReadBefore for a limit below 1.
	ErrLimit = errors.New("sqlitestore: limit must be at least 1")
	// ErrSchemaTooNew is matched by the *SchemaError of a database written by a newer version
	// of this package.
	ErrSchemaTooNew = errors.New("sqlitestore: database schema newer than this package")
	// ErrSchemaBehind is matched by the *SchemaError of a ReadOnly Open that finds a database
	// at an older schema version, which a read-only store does not migrate.
	ErrSchemaBehind = errors.New("sqlitestore: database schema older than this package")
	// ErrNotStore is matched by the error Open returns for a path that holds no store and
	// that it may not make one: a directory, a file that is not a SQLite database, a SQLite
	// database with another program's tables, or, with ReadOnly, an empty file. Nothing is
	// written to it.
	ErrNotStore = errors.New("sqlitestore: not a transcript store")
	// ErrReadOnly is returned by every write of a Store opened with ReadOnly.
	ErrReadOnly = errors.New("sqlitestore: store is read-only")
	// ErrOption is matched by the error Open returns for an invalid Option.
	ErrOption = errors.New("sqlitestore: invalid option")
)

// AppendError is the refusal of an append: transcript.AppendError, which every store of
// this module returns.
type AppendError = transcript.AppendError

// SchemaError reports a database whose schema version this package does not read: one
// written by a newer version of it, or, for a ReadOnly Open, by an older one that a
// read-only store does not migrate. Open leaves such a database untouched.
type SchemaError struct {
	Path  string // the database file, as given to Open
	Found int    // the database's schema version
	Known int    // the version this package reads (SchemaVersion)
}

func (e *SchemaError) Error() string {
	if e.Found > e.Known {
		return fmt.Sprintf("sqlitestore: %s has schema version %d, newer than %d, the newest this package knows", e.Path, e.Found, e.Known)
	}
	return fmt.Sprintf("sqlitestore: %s has schema version %d, older than %d, the one this package reads, and a read-only store does not migrate it", e.Path, e.Found, e.Known)
}

// Unwrap returns ErrSchemaTooNew for a newer schema, ErrSchemaBehind for an older one.
func (e *SchemaError) Unwrap() error {
	if e.Found > e.Known {
		return ErrSchemaTooNew
	}
	return ErrSchemaBehind
}

// stmtError wraps a failed statement, naming what it was doing; when ctx is done, the error
// matches ctx.Err().
func stmtError(ctx context.Context, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("sqlitestore: %s: %w (%v)", what, ctxErr, err)
	}
	return fmt.Errorf("sqlitestore: %s: %w", what, err)
}
