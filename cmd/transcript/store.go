package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/stores"
)

// store is what the commands open: sqlitestore.Store or pgstore.Store.
type store = stores.Store

// defaultDB is where the commands keep desks unless --db says otherwise.
const defaultDB = "transcript.db"

// deskFlags are the flags every command that touches a desk takes, and what the command
// asks of stores.Open besides.
type deskFlags struct {
	db   string
	desk string
	// opts are stores.Open's options: --read-db's standbys (Standbys), --init-db
	// (InitSchema), which the commands that write take, and the reports of a standby set
	// aside (StandbyReport: standbyWarnings makes one for a command's standard error) and
	// of a rebuild of the search index (IndexProgress: withIndexProgress sets one). The
	// open methods set ReadOnly as they need.
	opts stores.Options
	// createdNote, when set, is told that open created the SQLite database f.db, which
	// did not exist; withIndexProgress sets one that says so on the command's standard error.
	createdNote func()
}

// withIndexProgress returns f with an IndexProgress that reports on e's standard error
// (console.IndexProgress, which names a PostgreSQL database without its URL: it may hold a
// password), and with a createdNote that says there when open creates the database
// (noteCreatedDB).
func (f deskFlags) withIndexProgress(e *env) deskFlags {
	f.createdNote = func() { noteCreatedDB(e, f.db) }
	where := f.db
	if isPostgres(where) {
		where = "the PostgreSQL database"
	}
	f.opts.IndexProgress = console.IndexProgress(e.stderr, e.progress, where)
	return f
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
func addReadDBFlag(fs *flag.FlagSet, f *deskFlags) {
	fs.Var((*readDBFlag)(&f.opts.Standbys), "read-db", readDBUsage)
}

// addViewerFlags adds, for a command that shows a desk to one viewer (view, delta, search),
// the desk flags, --read-db, whose standbys set aside are warned of on e's standard error,
// and --as, the viewer (the operator unless it says otherwise), whose what it is.
func addViewerFlags(e *env, fs *flag.FlagSet, what string) (*deskFlags, *authorFlag) {
	df := &deskFlags{opts: stores.Options{StandbyReport: standbyWarnings(e.stderr)}}
	addDeskFlags(fs, df, "main")
	addReadDBFlag(fs, df)
	as := &authorFlag{author: transcript.Operator()}
	fs.Var(as, "as", "the `participant` whose "+what+" it is: "+authorSyntax)
	return df, as
}

// creatingCommands are the commands that create a database --db names, or migrate an older
// one: the others refuse a missing one and never change one.
const creatingCommands = "import, demo, serve, or append or token add with --create,"

// dbUsage is --db's help.
const dbUsage = "a SQLite `database` file or a postgres:// URL; " + creatingCommands + " creates a missing or empty file, the other commands read an existing one"

// addInitDBFlag adds --init-db, to a command that writes, into initDB.
func addInitDBFlag(fs *flag.FlagSet, initDB *bool) {
	fs.BoolVar(initDB, "init-db", false, "create the store's tables (transcript_*) in a PostgreSQL --db that holds other tables")
}

// addWritingDeskFlags adds, for a command that writes, the desk flags and --init-db. Its
// --desk takes only a name a new desk may have (transcript.ValidateDesk), checked as the
// command line is parsed.
func addWritingDeskFlags(fs *flag.FlagSet, f *deskFlags, desk string) {
	fs.StringVar(&f.db, "db", defaultDB, dbUsage)
	f.desk = desk
	fs.Var((*deskName)(&f.desk), "desk", "the `desk`'s name: "+deskNameRule)
	addInitDBFlag(fs, &f.opts.InitSchema)
}

// addDeskFlags adds, for a command that reads, the desk flags. Its --desk takes any name, so
// that a desk an older version stored under a name the rule now refuses stays readable.
func addDeskFlags(fs *flag.FlagSet, f *deskFlags, desk string) {
	fs.StringVar(&f.db, "db", defaultDB, dbUsage)
	fs.StringVar(&f.desk, "desk", desk, "the `desk`'s name")
}

// deskNameRule is transcript.ValidateDesk's rule in the words of a flag's help.
const deskNameRule = "1 to 100 letters, digits, '.', '_' or '-', not . or .."

// deskName is a --desk that holds a name transcript.ValidateDesk accepts.
type deskName string

func (d *deskName) String() string { return string(*d) }

func (d *deskName) Set(s string) error {
	var bad *transcript.InvalidError
	if err := transcript.ValidateDesk(s); errors.As(err, &bad) {
		return fmt.Errorf("invalid desk name: %s", bad.Reason)
	} else if err != nil {
		return err
	}
	*d = deskName(s)
	return nil
}

// isPostgres reports whether db names a PostgreSQL database rather than a SQLite file.
func isPostgres(db string) bool { return stores.IsPostgres(db) }

// open opens the store f.db names for a command that writes: PostgreSQL for a postgres:// or
// postgresql:// URL, else a SQLite file, created when it is missing. Either is initialized
// only when it holds nothing yet (or, for PostgreSQL, with --init-db), and migrated when
// it holds an older store; another program's database is refused and left as it was.
//
// --read-db needs PostgreSQL: the store then reads its desks from those standbys
// (pgstore.WithStandbys). A --db that is itself a standby opens read-only.
func (f deskFlags) open(ctx context.Context) (store, error) {
	existed := f.exists()
	st, err := f.openWith(ctx, f.opts)
	if errors.Is(err, pgstore.ErrNotStore) && !f.opts.InitSchema {
		return nil, withHint(err, "add --init-db to create the store's tables beside them")
	}
	if err == nil && !existed && f.createdNote != nil {
		f.createdNote()
	}
	return st, err
}

// openRead is open for commands that only read: it never creates, initializes, migrates or
// writes anything (stores.Options.ReadOnly). A missing SQLite file, an empty one and a
// store at an older schema version are errors that say which command makes or migrates it.
func (f deskFlags) openRead(ctx context.Context) (store, error) {
	if err := checkDBScheme(f.db); err != nil {
		return nil, err
	}
	if !f.exists() {
		return nil, f.missing()
	}
	opts := f.opts
	opts.ReadOnly, opts.InitSchema = true, false
	st, err := f.openWith(ctx, opts)
	switch {
	case errors.Is(err, sqlitestore.ErrSchemaBehind), errors.Is(err, pgstore.ErrSchemaBehind):
		return nil, withHint(err, creatingCommands+" migrates it")
	case errors.Is(err, sqlitestore.ErrNotStore) && isEmptyFile(f.db):
		return nil, withHint(err, creatingCommands+" creates a store in it")
	}
	return st, err
}

// openWith opens the store f.db names with opts; its refusals of f.db's scheme and of
// --read-db with SQLite are usage errors.
func (f deskFlags) openWith(ctx context.Context, opts stores.Options) (store, error) {
	if err := checkDBScheme(f.db); err != nil {
		return nil, err
	}
	st, err := stores.Open(ctx, f.db, opts)
	if errors.Is(err, stores.ErrStandbysNeedPostgres) {
		return nil, usageErrorf("--read-db needs a PostgreSQL --db (a postgres:// URL): a SQLite file has no standbys")
	}
	return st, err
}

// openExisting is open for commands that write to a database that must be there already
// (token revoke, mcp): a SQLite file that does not exist is an error rather than a new,
// empty database.
func (f deskFlags) openExisting(ctx context.Context) (store, error) {
	if err := checkDBScheme(f.db); err != nil {
		return nil, err
	}
	if !f.exists() {
		return nil, f.missing()
	}
	return f.openWith(ctx, f.opts) // these commands have no --init-db
}

// missing is the error of a SQLite --db that does not exist, for a command that needs it.
func (f deskFlags) missing() error {
	return fmt.Errorf("no database at %s (%s creates one; or name another with --db)", f.db, creatingCommands)
}

// exists reports whether the database f.db names may hold desks (stores.Exists).
func (f deskFlags) exists() bool { return stores.Exists(f.db) }

// isEmptyFile reports whether path is a file of no bytes.
func isEmptyFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Size() == 0
}

// checkDBScheme refuses, as a usage error, a --db that is a URL of a scheme other than
// PostgreSQL's (stores.CheckScheme).
func checkDBScheme(db string) error {
	var bad *stores.SchemeError
	if errors.As(stores.CheckScheme(db), &bad) {
		// Only the scheme: the rest of the URL may hold a password.
		return usageErrorf("--db: the scheme %s:// is not supported; give a SQLite file name or a postgres:// URL", bad.Scheme)
	}
	return nil
}

// hintError is a failure to open a database (a *stores.OpenError) and what to do about it.
type hintError struct {
	err  error
	hint string
}

func (e *hintError) Error() string { return fmt.Sprintf("%v (%s)", e.err, e.hint) }
func (e *hintError) Unwrap() error { return e.err }

// withHint returns err, a *stores.OpenError, with hint; any other err as it is.
func withHint(err error, hint string) error {
	if _, ok := errors.AsType[*stores.OpenError](err); ok {
		return &hintError{err: err, hint: hint}
	}
	return err
}
