package sqlitestore

import (
	"database/sql/driver"
	"fmt"
	"net/url"
	"path/filepath"

	"modernc.org/sqlite" // registers driverName
)

// indexWriterFunction is the SQL function that schema 9's triggers on messages name
// before every insert and every change of a row's content or erasure (in a query that
// never calls it: SQLite resolves the name when it prepares the write): this package
// registers it, so its writes, which keep the search index, go on, while a process of a
// version before the index, which lacks it, fails to write ("no such function") and
// changes nothing. A later migration that rebuilds messages must create the triggers
// again.
const indexWriterFunction = "sqlitestore_keeps_search_index"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(indexWriterFunction, 0, func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
		return nil, nil
	})
}

// driverName is the database/sql driver: modernc.org/sqlite, SQLite's C code translated to Go.
// It and github.com/ncruces/go-sqlite3 measured level on this store's reads and appends
// (BENCHMARKS.md); modernc runs SQLite's own unix VFS (locking, WAL index, fsync), on which
// the store's crash safety rests, where ncruces reimplements it in Go.
const driverName = "sqlite"

// dsn returns the data source name of the database file at path for the writer or for a
// reader. Every connection sets a busy timeout. The writer's transactions begin IMMEDIATE,
// taking the write lock up front, so two writers never deadlock upgrading a read lock;
// it runs with synchronous=FULL, so a committed append survives power loss, not only a crash
// of the process (migrate puts the file in WAL mode, once it knows the file is a store), and
// with secure_delete on, so that what a write removes or replaces (a redaction's erased text)
// is overwritten with zeros in the pages it leaves, not merely marked free.
// Readers are query_only. With ReadOnly, the writer too is a reader, and both open the file
// read-only (mode=ro): they never create it, nor set its journal mode. inspect's probe may
// also be immutable (immutable=1): it reads the file without locks, and creates nothing
// beside it.
func dsn(path string, c config, writer bool) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("sqlitestore: database path %q: %w", path, err)
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", c.busyTimeout.Milliseconds()))
	if c.readOnly {
		q.Set("mode", "ro")
		writer = false
	}
	if c.immutable {
		q.Set("immutable", "1")
	}
	if writer {
		q.Add("_pragma", "synchronous(FULL)")
		q.Add("_pragma", "secure_delete(ON)")
		q.Set("_txlock", "immediate")
	} else {
		q.Add("_pragma", "query_only(1)")
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs), RawQuery: q.Encode()}
	return u.String(), nil
}
