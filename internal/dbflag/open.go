package dbflag

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"

	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/quotable"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/stores"
)

// Open opens the store f.DB names for a command that writes: PostgreSQL for a postgres://
// or postgresql:// URL, else a SQLite file, created when it is missing. Either is
// initialized only when it holds nothing yet (or, for PostgreSQL, with --init-db), and
// migrated when it holds an older store; another program's database is refused and left
// as it was.
//
// --read-db needs PostgreSQL: the store then reads its desks from those standbys
// (pgstore.WithStandbys). A --db that is itself a standby opens read-only.
func (f Flags) Open(ctx context.Context) (stores.Store, error) {
	existed := f.Exists()
	st, err := f.openWith(ctx, f.Opts)
	if errors.Is(err, pgstore.ErrNotStore) && !f.Opts.InitSchema {
		return nil, withHint(err, "add --init-db to create the store's tables beside them")
	}
	if err == nil && !existed && f.createdNote != nil {
		f.createdNote()
	}
	return st, err
}

// OpenRead is Open for commands that only read: it never creates, initializes, migrates or
// writes anything (stores.Options.ReadOnly). A missing SQLite file, an empty one and a
// store at an older schema version are errors that say which command makes or migrates it.
func (f Flags) OpenRead(ctx context.Context) (stores.Store, error) {
	opts := f.Opts
	opts.ReadOnly, opts.InitSchema = true, false
	st, err := f.openExisting(ctx, opts)
	switch {
	case errors.Is(err, sqlitestore.ErrSchemaBehind), errors.Is(err, pgstore.ErrSchemaBehind):
		return nil, withHint(err, CreatingCommands+" migrates it")
	case errors.Is(err, sqlitestore.ErrNotStore) && isEmptyFile(f.DB):
		return nil, withHint(err, CreatingCommands+" creates a store in it")
	}
	return st, err
}

// OpenExisting is Open for commands that write to a database that must be there already
// (token revoke, mcp): a SQLite file that does not exist is an error rather than a new,
// empty database.
func (f Flags) OpenExisting(ctx context.Context) (stores.Store, error) {
	return f.openExisting(ctx, f.Opts)
}

// openExisting is openWith for a database that must be there already: a SQLite file that
// does not exist is an error that says which commands create one.
func (f Flags) openExisting(ctx context.Context, opts stores.Options) (stores.Store, error) {
	if err := checkScheme(f.DB); err != nil {
		return nil, err
	}
	if !f.Exists() {
		return nil, fmt.Errorf("no database at %s (%s creates one; or name another with --db)", quotedPath(f.DB), CreatingCommands)
	}
	return f.openWith(ctx, opts)
}

// openWith opens the store f.DB names with opts; its refusals of f.DB's scheme and of
// --read-db with SQLite are usage errors.
func (f Flags) openWith(ctx context.Context, opts stores.Options) (stores.Store, error) {
	if err := checkScheme(f.DB); err != nil {
		return nil, err
	}
	st, err := stores.Open(ctx, f.DB, opts)
	if errors.Is(err, stores.ErrStandbysNeedPostgres) {
		return nil, cliflag.Usagef("--read-db needs a PostgreSQL --db (a postgres:// URL): a SQLite file has no standbys")
	}
	return st, err
}

// Exists reports whether the database f.DB names may hold desks (stores.Exists).
func (f Flags) Exists() bool { return stores.Exists(f.DB) }

// IsEmptyFile reports whether f.DB names a SQLite file of no bytes: a database not there
// yet, in which a command that writes creates a store.
func (f Flags) IsEmptyFile() bool { return isEmptyFile(f.DB) }

// isEmptyFile reports whether path is a file of no bytes.
func isEmptyFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Size() == 0
}

// checkScheme refuses, as a usage error, a --db that is a URL of a scheme other than
// PostgreSQL's (stores.CheckScheme), or a key/value connection string ("host=db
// dbname=chat"), which would otherwise name a SQLite file: a PostgreSQL --db is a URL.
func checkScheme(db string) error {
	var bad *stores.SchemeError
	if errors.As(stores.CheckScheme(db), &bad) {
		// Only the scheme: the rest of the URL may hold a password.
		return cliflag.Usagef("--db: the scheme %s:// is not supported; give a SQLite file name or a postgres:// URL", bad.Scheme)
	}
	if !urlPrefix.MatchString(db) && connStringKey.MatchString(db) {
		return cliflag.Usagef("--db %s is a key/value connection string; give a PostgreSQL database as a postgres:// URL, such as postgres://user:password@host:5432/db?sslmode=disable", quotedPath(db))
	}
	return nil
}

// urlPrefix matches the beginning of a URL: a scheme and "://".
var urlPrefix = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// connStringKey matches a pair of a key/value connection string, at its start or after white
// space: a key libpq reads and "=".
var connStringKey = regexp.MustCompile(`(?i)(?:^|\s)(host|hostaddr|port|dbname|user|password|passfile|service|options|application_name|fallback_application_name|client_encoding|connect_timeout|keepalives|keepalives_idle|keepalives_interval|keepalives_count|tcp_user_timeout|target_session_attrs|load_balance_hosts|channel_binding|gssencmode|gsslib|krbsrvname|requirepeer|sslmode|sslcert|sslkey|sslpassword|sslrootcert|sslcrl|sslcrldir|sslsni|sslcompression|sslcertmode|ssl_min_protocol_version|ssl_max_protocol_version)\s*=`)

// HintError is a failure to open a database (a *stores.OpenError) and what to do about it.
type HintError struct {
	Err  error
	Hint string
}

func (e *HintError) Error() string { return fmt.Sprintf("%v (%s)", e.Err, e.Hint) }
func (e *HintError) Unwrap() error { return e.Err }

// withHint returns err, a *stores.OpenError, with hint; any other err as it is.
func withHint(err error, hint string) error {
	if _, ok := errors.AsType[*stores.OpenError](err); ok {
		return &HintError{Err: err, Hint: hint}
	}
	return err
}

// quotedPath is path, a --db, as an error names it: as cliflag.PrintableDSN prints it (a
// password in it is xxxxx), unless it could be a secret given where the path should be.
func quotedPath(path string) string {
	if !quotable.Text(path) {
		return "the path given (" + quotable.NotQuoted + ")"
	}
	return cliflag.PrintableDSN(path)
}
