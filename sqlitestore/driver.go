package sqlitestore

import (
	"database/sql/driver"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"sync/atomic"

	"modernc.org/sqlite" // registers driverName
)

// indexWriterFunction is the SQL function that schema 11's triggers on messages name
// before every insert and every change of a row's content or erasure (in a query that
// never calls it: SQLite resolves the name when it prepares the write): this package
// registers it, so its writes, which keep the search index with its thread tokens, go
// on, while a process of a version before them, which lacks it, fails to write ("no such
// function") and changes nothing: schema 9's triggers named
// "sqlitestore_keeps_search_index" and schema 10's "sqlitestore_keeps_keyed_index",
// which versions 9 and 10 registered and this one does not. A later migration that
// rebuilds messages must create the triggers again.
const indexWriterFunction = "sqlitestore_keeps_thread_index"

func init() {
	sqlite.MustRegisterDeterministicScalarFunction(indexWriterFunction, 0, func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
		return nil, nil
	})
	sqlite.MustRegisterScalarFunction(searchEntryFunction, 2, countWork(func(w *searchWork) *atomic.Int64 { return &w.entries }))
	sqlite.MustRegisterScalarFunction(searchRowFunction, 2, countWork(func(w *searchWork) *atomic.Int64 { return &w.rows }))
}

// The SQL functions a search calls to count its work (see Store.searchWork): each
// searchEntryFunction(store, x) and searchRowFunction(store, x) returns x, and counts one
// index entry read, or one row, for the Store whose workID is store when x is neither NULL
// nor 0. They are not deterministic, so that SQLite calls them for every row.
const (
	searchEntryFunction = "sqlitestore_search_entry"
	searchRowFunction   = "sqlitestore_search_row"
)

// searchWork counts the work of a Store's searches: index entries and rows read.
type searchWork struct{ entries, rows atomic.Int64 }

// workCounters holds the searchWork of every open Store, by its workID; lastWorkID is the
// last workID given.
var (
	workCounters sync.Map // int64 → *searchWork
	lastWorkID   atomic.Int64
)

// countWork returns the function that counts, with field, into the Store its first
// argument names.
func countWork(field func(*searchWork) *atomic.Int64) func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
	return func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		id, _ := args[0].(int64)
		if x, ok := args[1].(int64); ok && x != 0 {
			if w, ok := workCounters.Load(id); ok {
				field(w.(*searchWork)).Add(1)
			}
		}
		return args[1], nil
	}
}

// driverName is the database/sql driver: modernc.org/sqlite, SQLite's C code translated to Go.
// It and github.com/ncruces/go-sqlite3 cost the same on this store's reads and appends
// (BENCHMARKS.md, "SQLite store"); modernc runs SQLite's own unix VFS (locking, WAL index,
// fsync), on which the store's crash safety rests, where ncruces reimplements it in Go.
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
