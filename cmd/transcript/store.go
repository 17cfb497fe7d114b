package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// store is what the commands need of sqlitestore.Store and pgstore.Store.
type store interface {
	Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error)
	AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error
	// LookupKeys returns the rows of desk holding keys, by key; a key the desk does not
	// hold is absent (storetest.KeyLookup).
	LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error)
	Log(desk string) transcript.Log
	Desks(ctx context.Context) ([]string, error)
	// token.Store keeps the service's bearer tokens (token add, list, revoke; serve checks
	// every request against it).
	token.Store
	// sharing.BookStore keeps the participants' read states (the mcp command's books).
	sharing.BookStore
	Close() error
}

var (
	_ store = (*sqlitestore.Store)(nil)
	_ store = (*pgstore.Store)(nil)
)

// defaultDB is where the commands keep desks unless --db says otherwise.
const defaultDB = "transcript.db"

// deskFlags are the flags every command that touches a desk takes, and the standbys that
// the commands that only read (view, delta) and serve read from.
type deskFlags struct {
	db      string
	desk    string
	readDBs readDBFlag
	// standbyReport, when set, is told of each --read-db standby the store sets aside
	// (pgstore.WithStandbyReport); standbyWarnings makes one for a command's standard error.
	standbyReport func(error)
}

// standbyWarnings is a deskFlags.standbyReport that writes each standby set aside to w, as
// a warning line: the command goes on, reading from the other servers.
func standbyWarnings(w io.Writer) func(error) {
	return func(err error) { fmt.Fprintf(w, "transcript: warning: %v\n", err) }
}

// readDBFlag is --read-db, repeatable: the standbys of a PostgreSQL --db to read from.
type readDBFlag []string

func (f *readDBFlag) String() string { return strings.Join(*f, " ") }

func (f *readDBFlag) Set(dsn string) error {
	*f = append(*f, dsn)
	return nil
}

// readDBUsage is --read-db's help.
const readDBUsage = "a hot standby of a PostgreSQL --db to read desks from, a postgres:// `URL` (repeatable: reads go to each in turn, and to --db when none can answer; appends and tokens stay on --db)"

// addReadDBFlag adds --read-db to fs, into f.
func addReadDBFlag(fs *flag.FlagSet, f *deskFlags) { fs.Var(&f.readDBs, "read-db", readDBUsage) }

func addDeskFlags(fs *flag.FlagSet, f *deskFlags, desk string) {
	fs.StringVar(&f.db, "db", defaultDB, "a SQLite `database` file (created if missing) or a postgres:// URL")
	fs.StringVar(&f.desk, "desk", desk, "the `desk`'s name")
}

// isPostgres reports whether db names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file: the one test every command makes.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// open opens the store f.db names: PostgreSQL for a postgres:// or postgresql:// URL, else a
// SQLite file, created when it is missing.
//
// --read-db needs PostgreSQL: the store then reads its desks from those standbys
// (pgstore.WithStandbys). A --db that is itself a standby opens read-only.
func (f deskFlags) open(ctx context.Context) (store, error) {
	if isPostgres(f.db) {
		return pgstore.Open(ctx, f.db, pgstore.WithStandbys(f.readDBs...), pgstore.WithStandbyReport(f.standbyReport))
	}
	if len(f.readDBs) > 0 {
		return nil, usageErrorf("--read-db needs a PostgreSQL --db (a postgres:// URL): a SQLite file has no standbys")
	}
	return sqlitestore.Open(ctx, f.db)
}

// openExisting is open for commands that only read: a SQLite file that does not exist is an
// error rather than a new, empty database.
func (f deskFlags) openExisting(ctx context.Context) (store, error) {
	if !f.exists() {
		return nil, fmt.Errorf("no database at %s (create one with import, append or demo, or name another with --db)", f.db)
	}
	return f.open(ctx)
}

// exists reports whether the database f.db names may hold desks: a PostgreSQL URL, or a
// SQLite file that exists.
func (f deskFlags) exists() bool {
	if isPostgres(f.db) {
		return true
	}
	_, err := os.Stat(f.db)
	return !errors.Is(err, fs.ErrNotExist)
}
