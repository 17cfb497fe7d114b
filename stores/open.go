package stores

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sqlitestore"
)

// Options say how Open opens a store.
type Options struct {
	// ReadOnly opens the store to read only: it never creates, initializes, migrates or
	// writes anything (pgstore.ReadOnly, sqlitestore.ReadOnly).
	ReadOnly bool
	// InitSchema creates the store's tables in a PostgreSQL database that holds other
	// tables (pgstore.InitSchema).
	InitSchema bool
	// Standbys are hot standbys of a PostgreSQL database to read desks from
	// (pgstore.WithStandbys); a SQLite file has none (ErrStandbysNeedPostgres).
	Standbys []string
	// StandbyReport, when set, is told of each standby set aside (pgstore.WithStandbyReport).
	StandbyReport func(error)
	// IndexProgress, when set, is told how far a rebuild of the search index has come
	// (sqlitestore.WithIndexProgress, pgstore.WithIndexProgress).
	IndexProgress func(done, total int64)
}

// ErrStandbysNeedPostgres: Options.Standbys given for a SQLite file.
var ErrStandbysNeedPostgres = errors.New("stores: standbys need a PostgreSQL database: a SQLite file has none")

// IsPostgres reports whether name is a PostgreSQL database (a postgres:// or postgresql://
// URL) rather than a SQLite file.
func IsPostgres(name string) bool {
	return strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://")
}

// SchemeError is a name that is a URL of a scheme neither store takes. It holds the scheme
// alone: the rest of the URL may hold a password.
type SchemeError struct{ Scheme string }

func (e *SchemeError) Error() string {
	return fmt.Sprintf("stores: the scheme %s:// is not supported; give a SQLite file name or a postgres:// URL", e.Scheme)
}

// MistypedURLError is a name that begins with a PostgreSQL URL's scheme and a colon,
// "postgres:" or "postgresql:" in any case, but not with "postgres://" or "postgresql://":
// a mistyped URL ("postgres:/app:pw@host/db"), not a SQLite file's name. It holds the
// scheme alone, as given: the rest of the name may hold a password.
type MistypedURLError struct{ Scheme string }

func (e *MistypedURLError) Error() string {
	return fmt.Sprintf("stores: a database name that begins %s: but not %s:// is a mistyped PostgreSQL URL (postgres://user:password@host/db); the name is not quoted: it may hold a password",
		e.Scheme, strings.ToLower(e.Scheme))
}

// CheckScheme returns a *MistypedURLError when name begins as a PostgreSQL URL but is none
// (postgres: without //), and a *SchemeError when name is a URL of another scheme than
// PostgreSQL's: a SQLite name is a file name, and "mysql://host/db" would otherwise name a
// file in a directory "mysql:". Neither error holds more of name than its scheme.
func CheckScheme(name string) error {
	if IsPostgres(name) {
		return nil
	}
	for _, scheme := range []string{"postgresql", "postgres"} {
		if len(name) > len(scheme) && strings.EqualFold(name[:len(scheme)], scheme) && name[len(scheme)] == ':' {
			return &MistypedURLError{Scheme: name[:len(scheme)]}
		}
	}
	scheme, _, ok := strings.Cut(name, "://")
	if !ok || !isScheme(scheme) {
		return nil
	}
	return &SchemeError{Scheme: scheme}
}

// isScheme reports whether s could be a URL's scheme, as a name typed as one is spelled: a
// letter, then letters, digits, "+" and "-". Anything else before "://" is no scheme (a
// path, or a key/value connection string whose values hold a URL), and is never quoted as
// one.
func isScheme(s string) bool {
	for i, c := range s {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '+' || c == '-'):
		default:
			return false
		}
	}
	return s != ""
}

// Exists reports whether the database name gives may hold desks: a PostgreSQL URL, or a
// SQLite file that exists. A name CheckScheme refuses is reported as one that may, so that
// a caller goes on to Open, which refuses it without quoting it (a missing file's name is
// quoted, and a mistyped URL's may hold a password).
func Exists(name string) bool {
	if IsPostgres(name) || CheckScheme(name) != nil {
		return true
	}
	_, err := os.Stat(name)
	return !errors.Is(err, fs.ErrNotExist)
}

// Open opens the store name gives: PostgreSQL for a postgres:// or postgresql:// URL (its
// tables created when it holds nothing yet, or with InitSchema; migrated when it holds an
// older store), else a SQLite file, created when it is missing unless ReadOnly. Another
// program's database is refused and left as it was. The error is CheckScheme's, or
// ErrStandbysNeedPostgres, or an *OpenError.
func Open(ctx context.Context, name string, opts Options) (Store, error) {
	if err := CheckScheme(name); err != nil {
		return nil, err
	}
	if IsPostgres(name) {
		pgOpts := []pgstore.Option{pgstore.WithStandbys(opts.Standbys...), pgstore.WithStandbyReport(opts.StandbyReport)}
		if opts.ReadOnly {
			pgOpts = append(pgOpts, pgstore.ReadOnly())
		}
		if opts.InitSchema {
			pgOpts = append(pgOpts, pgstore.InitSchema())
		}
		if opts.IndexProgress != nil {
			pgOpts = append(pgOpts, pgstore.WithIndexProgress(opts.IndexProgress))
		}
		st, err := pgstore.Open(ctx, name, pgOpts...)
		if err != nil {
			return nil, &OpenError{DB: "the PostgreSQL database", Err: err} // its URL may hold a password
		}
		return st, nil
	}
	if len(opts.Standbys) > 0 {
		return nil, ErrStandbysNeedPostgres
	}
	var sqliteOpts []sqlitestore.Option
	if opts.ReadOnly {
		sqliteOpts = append(sqliteOpts, sqlitestore.ReadOnly())
	}
	if opts.IndexProgress != nil {
		sqliteOpts = append(sqliteOpts, sqlitestore.WithIndexProgress(opts.IndexProgress))
	}
	if err := checkDir(name); err != nil {
		return nil, &OpenError{DB: name, Err: err}
	}
	st, err := sqlitestore.Open(ctx, name, sqliteOpts...)
	if err != nil {
		return nil, &OpenError{DB: name, Err: err}
	}
	return st, nil
}

// MissingDirError is a SQLite file whose directory does not exist, or is no directory.
type MissingDirError struct {
	Dir     string // the directory, as the name gives it
	NotADir bool   // it exists, but is no directory
}

func (e *MissingDirError) Error() string {
	if e.NotADir {
		return fmt.Sprintf("%s is not a directory", e.Dir)
	}
	return fmt.Sprintf("directory %s does not exist", e.Dir)
}

// checkDir returns a *MissingDirError when the directory of the SQLite file name does not
// exist or is no directory: SQLite would say only that it is "unable to open database file".
func checkDir(name string) error {
	i := strings.LastIndexAny(name, `/`+string(filepath.Separator))
	if i < 0 {
		return nil // the working directory
	}
	dir := name[:i]
	if dir == "" {
		dir = name[:i+1] // the root
	}
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return &MissingDirError{Dir: dir}
	case err == nil && !info.IsDir():
		return &MissingDirError{Dir: dir, NotADir: true}
	}
	return nil
}
