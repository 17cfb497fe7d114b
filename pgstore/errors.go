package pgstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sharedesk/transcript"
)

// Reasons an append is rejected. Every *AppendError but a key conflict matches
// transcript.ErrInvalidMessage and, unless transcript.Message.ValidateNew or the reply rule
// (transcript.Message.ResolveAudience) found the fault, one of these; theirs match the root
// package's sentinels, such as transcript.ErrInvalidAudience and transcript.ErrNotReadable.
var (
	ErrDeskName        = transcript.ErrInvalidDesk // transcript.ValidateDesk refuses the name
	ErrParent          = transcript.ErrNoParent    // not an older row of the desk (storage.Batch.Settle)
	ErrContentTooLarge = transcript.ErrTooLarge    // over the store's limit (WithMaxContent)
	ErrAt              = transcript.ErrAt
	ErrText            = transcript.ErrText // invalid UTF-8 or a NUL byte, which PostgreSQL text cannot hold
	// ErrDuplicateKey: two messages of one AppendBatch carry the same Key
	// (storage.Batch.Check).
	ErrDuplicateKey = transcript.ErrDuplicateKey
)

// ErrLimit is returned by ReadBefore for a limit below 1.
var ErrLimit = errors.New("pgstore: limit must be at least 1")

// ErrClosed is returned by Watch after Close.
var ErrClosed = errors.New("pgstore: store closed")

// ErrSchemaTooNew is returned by Open and New when the database's schema was migrated by a
// newer version of this package than the running one. Nothing is changed.
var ErrSchemaTooNew = errors.New("pgstore: database schema newer than this package")

// ErrSchemaBehind is returned by Open and New for a database they may not migrate, whose
// schema is older than the one they need: a read-only store's (a standby's, or one opened
// with ReadOnly) older than this package's, or a standby's (WithStandbys) that has not
// replayed the primary's. The error names both versions. Nothing is changed.
var ErrSchemaBehind = errors.New("pgstore: database schema behind")

// ErrNotStore is returned by Open and New for a database that holds other tables but no
// store, without InitSchema. Nothing is changed.
var ErrNotStore = errors.New("pgstore: not a transcript store")

// ErrReadOnly is returned by the writes of a read-only Store (Append, AppendBatch, AddToken,
// RevokeToken, SaveBook), and by its Watch when its database is a standby: one opened on a
// standby, a server in recovery, or with ReadOnly. Nothing is written.
var ErrReadOnly = errors.New("pgstore: store is read-only")

// AppendError is the refusal of an append: transcript.AppendError, which every store of
// this module returns.
type AppendError = transcript.AppendError

// openError wraps the error of Open's first query. A connection that failed is said once
// per reason: pgconn lists every attempt, and with sslmode=prefer (the default) it tries
// each address twice, with TLS and without, so that one refused dial shows twice. The
// error unwraps to pgconn's, which names the user and the database, never the password.
func openError(err error) error {
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		return fmt.Errorf("pgstore: open: %w", err)
	}
	var reasons []string
	for _, line := range strings.Split(errors.Unwrap(ce).Error(), "\n") {
		if line = strings.TrimSpace(line); line != "" && !slices.Contains(reasons, line) {
			reasons = append(reasons, line)
		}
	}
	return &ConnectError{Database: ce.Config.Database, User: ce.Config.User, Reasons: reasons, Err: err}
}

// ConnectError is the failure of Open or New to connect to the server: the database and
// the user it connected as (never the password), and each reason the attempts failed for,
// once. It unwraps to pgconn's error.
type ConnectError struct {
	Database string
	User     string
	Reasons  []string
	Err      error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("pgstore: open: cannot connect to database %q as %q: %s", e.Database, e.User, strings.Join(e.Reasons, "; "))
}

// Unwrap returns pgconn's error.
func (e *ConnectError) Unwrap() error { return e.Err }

// stmtError wraps a failed statement, naming what it was doing; when ctx is done, the error
// matches ctx.Err().
func stmtError(ctx context.Context, what string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
		return fmt.Errorf("pgstore: %s: %w (%v)", what, ctxErr, err)
	}
	return fmt.Errorf("pgstore: %s: %w", what, err)
}
