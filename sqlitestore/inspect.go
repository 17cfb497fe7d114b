package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// fileState is what inspect found at a path, before Open writes anything there.
type fileState int

const (
	fileMissing fileState = iota // no file: Open creates one
	fileEmpty                    // a file holding no table, index or view: Open initializes it
	fileStore                    // a store of this package's, at some schema version
)

// queryer is what classify reads with: a connection or a transaction.
type queryer interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inspect reports what the file at path holds, reading it on a connection of its own opened
// read-only, so that nothing is written: not even the journal mode, which migrate sets once
// it has classified the file under the write lock. Nor does it create anything beside the
// file: a WAL-mode database whose write-ahead log and index do not both exist already is read
// as immutable (its log holds nothing then, or nothing a reader could use without writing
// the index). A directory, a file that is not a SQLite database and a SQLite database holding
// another program's tables are errors matching ErrNotStore. For a store it also returns its
// schema version.
func inspect(ctx context.Context, path string, c config) (fileState, int, error) {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fileMissing, 0, nil
	case err != nil:
		return 0, 0, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	case info.IsDir():
		return 0, 0, notStoref(path, "is a directory, not a database file")
	case info.Size() == 0:
		return fileEmpty, 0, nil
	}
	wal, err := readHeader(path)
	if err != nil {
		return 0, 0, err
	}
	probe := c
	probe.readOnly = true
	probe.immutable = wal && !sidecarsExist(path)
	source, err := dsn(path, probe, false)
	if err != nil {
		return 0, 0, err
	}
	db, err := sql.Open(driverName, source)
	if err != nil {
		return 0, 0, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	defer db.Close()
	state, version, err := classify(ctx, db)
	if err != nil {
		return 0, 0, explainOpen(path, err)
	}
	return state, version, nil
}

// sqliteMagic begins the 100-byte header of every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// readHeader reads the header of the SQLite database at path and reports whether the file is
// in WAL mode (its read and write versions, bytes 18 and 19, are 2). A file without the
// header is an error matching ErrNotStore.
func readHeader(path string) (wal bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	defer f.Close()
	var header [100]byte
	if _, err := io.ReadFull(f, header[:]); errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || string(header[:len(sqliteMagic)]) != sqliteMagic {
		return false, notStoref(path, "is not a SQLite database")
	} else if err != nil {
		return false, fmt.Errorf("sqlitestore: open %s: %w", path, err)
	}
	return header[18] == 2 || header[19] == 2, nil
}

// classify reads q's schema: no table, index or view at all is fileEmpty; exactly the tables
// of a store at the version its schema_version holds (or, for a version newer than this
// package's, at least those of SchemaVersion) are fileStore, with that version; anything
// else is another program's database, an error matching ErrNotStore.
func classify(ctx context.Context, q queryer) (fileState, int, error) {
	tables, err := listTables(ctx, q)
	if err != nil {
		return 0, 0, err
	}
	var objects int
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\_%' ESCAPE '\'`).Scan(&objects); err != nil {
		return 0, 0, err
	}
	if objects == 0 {
		return fileEmpty, 0, nil
	}
	if !slices.Contains(tables, "schema_version") {
		return 0, 0, &foreignError{tables: tables}
	}
	var version int
	if err := q.QueryRowContext(ctx, `SELECT version FROM schema_version`).Scan(&version); err != nil {
		return 0, 0, &foreignError{tables: tables}
	}
	known, err := storeTables()
	if err != nil {
		return 0, 0, err
	}
	switch {
	case version < 0:
		return 0, 0, &foreignError{tables: tables}
	case version > SchemaVersion:
		for _, name := range known[SchemaVersion] {
			if !slices.Contains(tables, name) {
				return 0, 0, &foreignError{tables: tables}
			}
		}
	case !slices.Equal(tables, known[version]):
		return 0, 0, &foreignError{tables: tables}
	}
	return fileStore, version, nil
}

// listTables returns the names of q's tables, sorted, but SQLite's own (sqlite_...).
func listTables(ctx context.Context, q queryer) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite\_%' ESCAPE '\' AND type = 'table' ORDER BY name`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, err
		}
		tables = append(tables, name)
	}
	return tables, rows.Err()
}

// storeTables returns the tables of a store at each version, 0 to SchemaVersion, sorted by
// name: those its migrations make, found by running them on a database in memory once.
var storeTables = sync.OnceValues(func() ([][]string, error) {
	db, err := sql.Open(driverName, "file::memory:")
	if err != nil {
		return nil, fmt.Errorf("sqlitestore: listing the schema's tables: %w", err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1) // one connection: one database in memory
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, `CREATE TABLE schema_version (version INTEGER NOT NULL)`); err != nil {
		return nil, fmt.Errorf("sqlitestore: listing the schema's tables: %w", err)
	}
	var all [][]string
	for i := 0; ; i++ {
		tables, err := listTables(ctx, db)
		if err != nil {
			return nil, fmt.Errorf("sqlitestore: listing the schema's tables at version %d: %w", i, err)
		}
		all = append(all, tables)
		if i == len(migrations) {
			return all, nil
		}
		if _, err := db.ExecContext(ctx, migrations[i].sql); err != nil {
			return nil, fmt.Errorf("sqlitestore: listing the schema's tables: %s: %w", migrations[i].name, err)
		}
	}
})

// foreignError is classify's finding of another program's database; explainOpen names the
// file.
type foreignError struct{ tables []string }

func (e *foreignError) Error() string {
	if len(e.tables) == 0 {
		return "a SQLite database, but not a transcript store"
	}
	const most = 5
	shown := e.tables[:min(len(e.tables), most)]
	more := ""
	if len(e.tables) > most {
		more = fmt.Sprintf(" and %d more", len(e.tables)-most)
	}
	return fmt.Sprintf("a SQLite database, but not a transcript store (its tables: %s%s)", strings.Join(shown, ", "), more)
}

// explainOpen turns an error opening or reading the file at path into one that says, in
// words, what the file is when that is why: another program's database, or no SQLite
// database at all (both matching ErrNotStore). Other errors are wrapped as they are.
func explainOpen(path string, err error) error {
	var foreign *foreignError
	var se *sqlite.Error
	switch {
	case errors.As(err, &foreign):
		return notStoref(path, "is %s; it was left unchanged", foreign)
	case errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_NOTADB:
		return notStoref(path, "is not a SQLite database")
	}
	return fmt.Errorf("sqlitestore: open %s: %w", path, err)
}

// NotStoreError is a path Open will not open as a store, and leaves as it is. It matches
// ErrNotStore, and its message is what the path is.
type NotStoreError struct {
	Path string // the path given to Open
	What string // what the path is: "is a directory, not a database file", "is not a SQLite database", ...
}

func notStoref(path, format string, args ...any) error {
	return &NotStoreError{Path: path, What: fmt.Sprintf(format, args...)}
}

func (e *NotStoreError) Error() string { return "sqlitestore: " + e.Path + " " + e.What }

// Is reports that every NotStoreError matches ErrNotStore.
func (e *NotStoreError) Is(target error) bool { return target == ErrNotStore }

// checkReadOnly reports whether a ReadOnly Open may read what inspect found at path: a store
// at SchemaVersion, which it needs to write nothing to read.
func checkReadOnly(path string, state fileState, version int) error {
	switch {
	case state == fileMissing:
		return fmt.Errorf("sqlitestore: %w", &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist})
	case state == fileEmpty:
		return notStoref(path, "is empty: it holds no transcript store yet")
	case version != SchemaVersion:
		return &SchemaError{Path: path, Found: version, Known: SchemaVersion}
	}
	return nil
}

// writable returns nil, or ErrReadOnly for a Store opened with ReadOnly.
func (s *Store) writable() error {
	if s.readOnly {
		return ErrReadOnly
	}
	return nil
}
