package dbflag

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/stores"
)

// Default is where the commands keep desks unless --db or Env says otherwise.
const Default = "transcript.db"

// Env names the environment variable that, when set, is --db's default for every command.
const Env = "TRANSCRIPT_DB"

// CreatingCommands are the commands that create a database --db names, or migrate an older
// one: the others refuse a missing one and never change one.
const CreatingCommands = "import, demo, serve, or append or token add with --create,"

// Usage is --db's help.
const Usage = "a SQLite `database` file or a postgres:// URL; " + CreatingCommands + " creates a missing or empty file, the other commands read an existing one"

// PlainUsage is --db's help for the commands whose help says what they do to the database.
const PlainUsage = "a SQLite `database` file or a postgres:// URL"

// ReadDBUsage is --read-db's help.
const ReadDBUsage = "a hot standby of a PostgreSQL --db to read desks from, a postgres:// `URL` (repeatable: reads go to each in turn, and to --db when none can answer; appends and tokens stay on --db)"

// CreateUsage is --create's help.
const CreateUsage = "make the desk if the database holds no desk of that name (without it, a desk name that is not there is an error that lists the desks: most often a typo)"

// DeskNameRule is transcript.ValidateDesk's rule in the words of a flag's help.
const DeskNameRule = "1 to 100 letters, digits, '.', '_' or '-', not . or .."

// Flags are the flags every command that touches a desk takes, and what the command asks
// of stores.Open besides.
type Flags struct {
	DB   string
	Desk string
	// Opts are stores.Open's options: --read-db's standbys (Standbys), --init-db
	// (InitSchema), which the commands that write take, and the reports of a standby set
	// aside (StandbyReport: StandbyWarnings makes one for a command's standard error) and
	// of a rebuild of the search index (IndexProgress: WithIndexProgress sets one). The
	// open methods set ReadOnly as they need.
	Opts stores.Options
	// Create is --create (AddCreate): OpenForDesk makes a desk the database does not hold.
	Create bool
	// createdNote, when set, is told that open created the SQLite database DB, which did
	// not exist; WithIndexProgress sets one that says so on the command's standard error.
	createdNote func()
}

// WithIndexProgress returns f with an IndexProgress that reports on stderr, a terminal
// when tty (console.IndexProgress, which names a PostgreSQL database without its URL: it
// may hold a password), and that says there when an open creates the database
// (NoteCreatedDB).
func (f Flags) WithIndexProgress(stderr io.Writer, tty bool) Flags {
	f.createdNote = func() { NoteCreatedDB(stderr, f.DB) }
	where := cliflag.PrintableDSN(f.DB)
	if stores.IsPostgres(f.DB) {
		where = "the PostgreSQL database"
	}
	f.Opts.IndexProgress = console.IndexProgress(stderr, tty, where)
	return f
}

// NoteCreatedDB says on w that the command created a new SQLite database at db, with the
// directory it is in when db is a relative path: a command run from another directory
// than meant makes a database there, and says so. It prints db as cliflag.PrintableDSN
// does.
func NoteCreatedDB(w io.Writer, db string) {
	where := cliflag.PrintableDSN(db)
	if !filepath.IsAbs(db) {
		if abs, err := filepath.Abs(db); err == nil {
			where = fmt.Sprintf("%s (%s)", where, cliflag.PrintableDSN(abs))
		}
	}
	fmt.Fprintf(w, "created a new database at %s\n", where)
}

// StandbyWarnings is a stores.Options.StandbyReport that writes each standby set aside to
// w, as a warning line: the command goes on, reading from the other servers.
func StandbyWarnings(w io.Writer) func(error) {
	return func(err error) { fmt.Fprintf(w, "transcript: warning: %v\n", err) }
}

// ReadDBs is --read-db, repeatable: the standbys of a PostgreSQL --db to read from.
type ReadDBs []string

func (f *ReadDBs) String() string { return strings.Join(*f, " ") }

func (f *ReadDBs) Set(dsn string) error {
	*f = append(*f, dsn)
	return nil
}

// AddReadDB adds --read-db to fs, into f.Opts.Standbys.
func (f *Flags) AddReadDB(fs *flag.FlagSet) {
	fs.Var((*ReadDBs)(&f.Opts.Standbys), "read-db", ReadDBUsage)
}

// AddInitDB adds --init-db, to a command that writes, into initDB.
func AddInitDB(fs *flag.FlagSet, initDB *bool) {
	fs.BoolVar(initDB, "init-db", false, "create the store's tables (transcript_*) in a PostgreSQL --db that holds other tables")
}

// AddCreate adds --create, for a command that writes to one desk, into f.Create.
func (f *Flags) AddCreate(fs *flag.FlagSet) {
	fs.BoolVar(&f.Create, "create", false, CreateUsage)
}

// AddWriting adds, for a command that writes, --db, --desk (desk by default) and
// --init-db. Its --desk takes only a name a new desk may have (transcript.ValidateDesk),
// checked as the command line is parsed.
func (f *Flags) AddWriting(fs *flag.FlagSet, desk string) {
	fs.StringVar(&f.DB, "db", Default, Usage)
	f.Desk = desk
	fs.Var((*deskName)(&f.Desk), "desk", "the `desk`'s name: "+DeskNameRule)
	AddInitDB(fs, &f.Opts.InitSchema)
}

// AddReading adds, for a command that reads, --db and --desk (desk by default). Its
// --desk takes any name, so that a desk an older version stored under a name the rule now
// refuses stays readable.
func (f *Flags) AddReading(fs *flag.FlagSet, desk string) {
	fs.StringVar(&f.DB, "db", Default, Usage)
	fs.StringVar(&f.Desk, "desk", desk, "the `desk`'s name")
}

// deskName is a --desk that holds a name transcript.ValidateDesk accepts.
type deskName string

func (d *deskName) String() string { return string(*d) }

func (d *deskName) Set(s string) error {
	if err := transcript.ValidateDesk(s); err != nil {
		return err
	}
	*d = deskName(s)
	return nil
}

// ApplyEnv sets fs's --db, when the command has one and the command line did not give it,
// to what Env names, when it is set (cliflag.SetFromEnv); call it after parsing. The
// flag's default, in the help, stays Default: the variable may hold a URL with a password.
func ApplyEnv(fs *flag.FlagSet) error {
	if _, err := cliflag.SetFromEnv(fs, "db", Env); err != nil {
		return cliflag.Usagef("%s: %v", Env, err)
	}
	return nil
}
