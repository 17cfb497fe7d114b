package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// store is what the commands need of sqlitestore.Store and pgstore.Store.
type store interface {
	// transcript.Store appends, restores, looks keys up and reads desks (import, export,
	// desks); AppendNew tells the append command's new rows from replays.
	transcript.Store
	transcript.NewRowAppender
	// token.Store keeps the service's bearer tokens (token add, list, revoke; serve checks
	// every request against it).
	token.Store
	// sharing.BookStore keeps the participants' read states (the mcp command's books).
	sharing.BookStore
	// DeleteDesk deletes a desk, its search index, books and, asked to, its tokens (desks
	// delete); without them, a desk that has tokens is token.ErrDeskHasTokens.
	DeleteDesk(ctx context.Context, desk string, tokens bool) (int64, error)
	// DeleteToken deletes a token for good (serve --demo's, as serve stops).
	DeleteToken(ctx context.Context, id string) error
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
	// initDB is --init-db, which the commands that write take: a PostgreSQL database
	// holding other tables gets the store's tables beside them (pgstore.InitSchema).
	initDB bool
	// standbyReport, when set, is told of each --read-db standby the store sets aside
	// (pgstore.WithStandbyReport); standbyWarnings makes one for a command's standard error.
	standbyReport func(error)
	// indexProgress, when set, is told how far a rebuild of the store's search index has
	// come (sqlitestore.WithIndexProgress, pgstore.WithIndexProgress); withIndexProgress
	// sets one.
	indexProgress sqlitestore.IndexProgress
	// createdNote, when set, is told that open created the SQLite database f.db, which
	// did not exist; withIndexProgress sets one that says so on the command's standard error.
	createdNote func()
}

// withIndexProgress returns f with an indexProgress that reports on e's standard error: a
// line as a rebuild of the search index begins (a migration of a file that holds rows),
// and on a terminal the rows done as it goes, at most ten times a second; and with a
// createdNote that says there when open creates the database (noteCreatedDB).
func (f deskFlags) withIndexProgress(e *env) deskFlags {
	f.createdNote = func() { noteCreatedDB(e, f.db) }
	var last time.Time
	f.indexProgress = func(done, total int64) {
		if last.IsZero() {
			where := f.db
			if isPostgres(where) {
				where = "the PostgreSQL database" // its URL may hold a password
			}
			fmt.Fprintf(e.stderr, "transcript: rebuilding the search index of %s (%d rows)\n", where, total)
		}
		if e.progress && (time.Since(last) >= 100*time.Millisecond || done == total) {
			fmt.Fprintf(e.stderr, "\r\x1b[Kindexed %d of %d rows", done, total)
			if done == total {
				fmt.Fprint(e.stderr, "\r\x1b[K")
			}
		}
		last = time.Now()
	}
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
func addReadDBFlag(fs *flag.FlagSet, f *deskFlags) { fs.Var(&f.readDBs, "read-db", readDBUsage) }

// addViewerFlags adds, for a command that shows a desk to one viewer (view, delta, search),
// the desk flags, --read-db, whose standbys set aside are warned of on e's standard error,
// and --as, the viewer (the operator unless it says otherwise), whose what it is.
func addViewerFlags(e *env, fs *flag.FlagSet, what string) (*deskFlags, *authorFlag) {
	df := &deskFlags{standbyReport: standbyWarnings(e.stderr)}
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
	addInitDBFlag(fs, &f.initDB)
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
	var bad *transcript.DeskNameError
	if err := transcript.ValidateDesk(s); errors.As(err, &bad) {
		return fmt.Errorf("invalid desk name: %s", bad.Reason)
	} else if err != nil {
		return err
	}
	*d = deskName(s)
	return nil
}

// isPostgres reports whether db names a PostgreSQL database (a postgres:// or
// postgresql:// URL) rather than a SQLite file: the one test every command makes.
func isPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// open opens the store f.db names for a command that writes: PostgreSQL for a postgres:// or
// postgresql:// URL, else a SQLite file, created when it is missing. Either is initialized
// only when it holds nothing yet (or, for PostgreSQL, with --init-db), and migrated when
// it holds an older store; another program's database is refused and left as it was.
//
// --read-db needs PostgreSQL: the store then reads its desks from those standbys
// (pgstore.WithStandbys). A --db that is itself a standby opens read-only.
func (f deskFlags) open(ctx context.Context) (store, error) {
	var opts []pgstore.Option
	if f.initDB {
		opts = append(opts, pgstore.InitSchema())
	}
	existed := f.exists()
	st, err := f.openWith(ctx, opts, nil)
	if errors.Is(err, pgstore.ErrNotStore) && !f.initDB {
		return nil, withHint(err, "add --init-db to create the store's tables beside them")
	}
	if err == nil && !existed && f.createdNote != nil {
		f.createdNote()
	}
	return st, err
}

// openRead is open for commands that only read: it never creates, initializes, migrates or
// writes anything (pgstore.ReadOnly, sqlitestore.ReadOnly). A missing SQLite file, an empty
// one and a store at an older schema version are errors that say which command makes or
// migrates it.
func (f deskFlags) openRead(ctx context.Context) (store, error) {
	if err := checkDBScheme(f.db); err != nil {
		return nil, err
	}
	if !f.exists() {
		return nil, f.missing()
	}
	st, err := f.openWith(ctx, []pgstore.Option{pgstore.ReadOnly()}, []sqlitestore.Option{sqlitestore.ReadOnly()})
	switch {
	case errors.Is(err, sqlitestore.ErrSchemaBehind), errors.Is(err, pgstore.ErrSchemaBehind):
		return nil, withHint(err, creatingCommands+" migrates it")
	case errors.Is(err, sqlitestore.ErrNotStore) && isEmptyFile(f.db):
		return nil, withHint(err, creatingCommands+" creates a store in it")
	}
	return st, err
}

// openWith opens the store f.db names with the options of its kind. Its failure is an
// *openError.
func (f deskFlags) openWith(ctx context.Context, pgOpts []pgstore.Option, sqliteOpts []sqlitestore.Option) (store, error) {
	if err := checkDBScheme(f.db); err != nil {
		return nil, err
	}
	if isPostgres(f.db) {
		opts := append(pgOpts, pgstore.WithStandbys(f.readDBs...), pgstore.WithStandbyReport(f.standbyReport))
		if f.indexProgress != nil {
			opts = append(opts, pgstore.WithIndexProgress(pgstore.IndexProgress(f.indexProgress)))
		}
		st, err := pgstore.Open(ctx, f.db, opts...)
		if err != nil {
			return nil, &openError{db: "the PostgreSQL database", err: err} // its URL may hold a password
		}
		return st, nil
	}
	if len(f.readDBs) > 0 {
		return nil, usageErrorf("--read-db needs a PostgreSQL --db (a postgres:// URL): a SQLite file has no standbys")
	}
	if f.indexProgress != nil {
		sqliteOpts = append(sqliteOpts, sqlitestore.WithIndexProgress(f.indexProgress))
	}
	if err := checkDir(f.db); err != nil {
		return nil, &openError{db: f.db, err: err}
	}
	st, err := sqlitestore.Open(ctx, f.db, sqliteOpts...)
	if err != nil {
		return nil, &openError{db: f.db, err: err}
	}
	return st, nil
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
	return f.openWith(ctx, nil, nil) // these commands have no --init-db
}

// missing is the error of a SQLite --db that does not exist, for a command that needs it.
func (f deskFlags) missing() error {
	return fmt.Errorf("no database at %s (%s creates one; or name another with --db)", f.db, creatingCommands)
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

// isEmptyFile reports whether path is a file of no bytes.
func isEmptyFile(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.Mode().IsRegular() && info.Size() == 0
}

// checkDBScheme refuses a --db that is a URL of a scheme other than PostgreSQL's: a SQLite
// --db is a file name, and "mysql://host/db" would otherwise name a file in a directory
// "mysql:".
func checkDBScheme(db string) error {
	scheme, _, ok := strings.Cut(db, "://")
	if !ok || isPostgres(db) || strings.ContainsAny(scheme, `/\.`) {
		return nil
	}
	// Only the scheme: the rest of the URL may hold a password.
	return usageErrorf("--db: the scheme %s:// is not supported; give a SQLite file name or a postgres:// URL", scheme)
}

// openError is the failure to open the database db names (a SQLite file, or "the
// PostgreSQL database"), and hint, what to do about it, when there is something to say.
type openError struct {
	db   string
	err  error
	hint string
}

func (e *openError) Error() string {
	if e.hint != "" {
		return fmt.Sprintf("open database %s: %v (%s)", e.db, e.err, e.hint)
	}
	return fmt.Sprintf("open database %s: %v", e.db, e.err)
}

func (e *openError) Unwrap() error { return e.err }

// withHint returns err, an *openError, with hint; any other err as it is.
func withHint(err error, hint string) error {
	var oe *openError
	if errors.As(err, &oe) {
		withHint := *oe
		withHint.hint = hint
		return &withHint
	}
	return err
}

// missingDirError is a SQLite --db whose directory does not exist, or is no directory.
type missingDirError struct {
	dir     string // the directory, as the --db names it
	notADir bool   // it exists, but is no directory
}

func (e *missingDirError) Error() string {
	if e.notADir {
		return fmt.Sprintf("%s is not a directory", e.dir)
	}
	return fmt.Sprintf("directory %s does not exist", e.dir)
}

// checkDir returns a *missingDirError when the directory of the SQLite file db does not
// exist or is no directory: SQLite would say only that it is "unable to open database file".
func checkDir(db string) error {
	i := strings.LastIndexAny(db, `/`+string(filepath.Separator))
	if i < 0 {
		return nil // the working directory
	}
	dir := db[:i]
	if dir == "" {
		dir = db[:i+1] // the root
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &missingDirError{dir: dir}
	case err == nil && !info.IsDir():
		return &missingDirError{dir: dir, notADir: true}
	}
	return nil
}
