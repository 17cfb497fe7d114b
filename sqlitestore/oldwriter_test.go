package sqlitestore

import (
	"database/sql"
	"database/sql/driver"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"modernc.org/sqlite"

	"github.com/sharedesk/transcript"
)

// oldDriverName is a driver like driverName without this package's functions: the
// driver of a process of a version before the search index, which never registered
// indexWriterFunction (functions are registered on a driver, and a new one has none).
const oldDriverName = "sqlite-before-search-index"

// v9DriverName and v10DriverName are drivers of processes of versions 9 and 10: each
// registers the function its schema's triggers name, and not indexWriterFunction.
const (
	v9DriverName  = "sqlite-version-9"
	v10DriverName = "sqlite-version-10"
)

func init() {
	sql.Register(oldDriverName, &sqlite.Driver{})
	for name, function := range map[string]string{v9DriverName: "sqlitestore_keeps_search_index", v10DriverName: "sqlitestore_keeps_keyed_index"} {
		d := &sqlite.Driver{}
		d.MustRegisterDeterministicScalarFunction(function, 0, func(*sqlite.FunctionContext, []driver.Value) (driver.Value, error) {
			return nil, nil
		})
		sql.Register(name, d)
	}
}

// TestV9WriterRefused: a process of version 9, whose writes keep the search index in its
// old form (terms, not keyed tokens), its connection open and its statements prepared
// while the file was at schema 9, goes on running after another process migrated the file
// to SchemaVersion: its append, edit and erasure fail ("no such function") and change no
// row.
func TestV9WriterRefused(t *testing.T) { checkWriterRefused(t, 9, v9DriverName) }

// TestV10WriterRefused: so does a process of version 10, whose writes keep the keyed
// index without thread tokens.
func TestV10WriterRefused(t *testing.T) { checkWriterRefused(t, 10, v10DriverName) }

// checkWriterRefused checks that a process of schema version, on driverName, its writes
// prepared at that version, can no longer write once the file is at SchemaVersion.
func checkWriterRefused(t *testing.T, version int, driverName string) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mixed.db")
	db := openRaw(t, path)
	if _, err := migrate(ctx, db, 8); err != nil {
		t.Fatal(err)
	}
	writeOldDesk(t, db, time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC))
	if _, err := migrate(ctx, db, version); err != nil {
		t.Fatal(err)
	}
	old := openRawWith(t, driverName, path)
	defer old.Close()
	writes := []string{
		`INSERT INTO messages (desk, seq, parent, author, content, at_us) VALUES (1, 4, 0, 1, 'deploy secret', 0)`,
		`UPDATE messages SET content = 'deploy secret' WHERE desk = 1 AND seq = 1`,
		`UPDATE messages SET content = '', redacted = 1 WHERE desk = 1 AND seq = 1`,
	}
	var prepared []*sql.Stmt
	for _, q := range writes {
		stmt, err := old.PrepareContext(ctx, q)
		if err != nil {
			t.Fatalf("version %d's %q at schema %d: %v", version, q, version, err)
		}
		prepared = append(prepared, stmt)
	}
	if _, err := migrate(ctx, db, SchemaVersion); err != nil {
		t.Fatal(err)
	}
	before := dumpTables(t, db)
	for i, q := range writes {
		for how, exec := range map[string]func() (sql.Result, error){
			"prepared before the migration": func() (sql.Result, error) { return prepared[i].ExecContext(ctx) },
			"prepared after it":             func() (sql.Result, error) { return old.ExecContext(ctx, q) },
		} {
			if _, err := exec(); err == nil || !strings.Contains(err.Error(), "no such function") {
				t.Errorf("version %d's %q, %s, at schema %d: %v, want no such function", version, q, how, SchemaVersion, err)
			}
		}
	}
	if diff := cmp.Diff(before, dumpTables(t, db)); diff != "" {
		t.Errorf("version %d's writes changed rows (-before +after):\n%s", version, diff)
	}
}

// TestOldWriterRefused: a process of a version before the search index, its connection
// open and its statements prepared while the file was at schema 8, goes on running after
// another process migrated the file to 9: its append, edit and erasure fail ("no such
// function", as SQLite prepares them again for the new schema) and change no row, so they
// can neither leave an erased row's words in the index nor corrupt it. This version's
// writes on the same file succeed.
func TestOldWriterRefused(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "mixed.db")
	db := openRaw(t, path)
	if _, err := migrate(ctx, db, 8); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 7, 1, 9, 0, 0, 0, time.UTC)
	writeOldDesk(t, db, at)
	old := openRawWith(t, oldDriverName, path)
	defer old.Close()
	writes := map[string]string{
		"append": `INSERT INTO messages (desk, seq, parent, author, content, at_us) VALUES (1, 4, 0, 1, 'deploy secret', 0)`,
		"edit":   `UPDATE messages SET content = 'deploy secret' WHERE desk = 1 AND seq = 1`,
		"erase":  `UPDATE messages SET content = '', redacted = 1 WHERE desk = 1 AND seq = 1`,
	}
	prepared := make(map[string]*sql.Stmt)
	for name, q := range writes {
		var err error
		if prepared[name], err = old.PrepareContext(ctx, q); err != nil {
			t.Fatalf("the old process's %s at schema 8: %v", name, err)
		}
	}
	if _, err := migrate(ctx, db, SchemaVersion); err != nil {
		t.Fatal(err)
	}
	before := dumpTables(t, db)
	for name, q := range writes {
		for how, exec := range map[string]func() (sql.Result, error){
			"prepared before the migration": func() (sql.Result, error) { return prepared[name].ExecContext(ctx) },
			"prepared after it":             func() (sql.Result, error) { return old.ExecContext(ctx, q) },
		} {
			if _, err := exec(); err == nil || !strings.Contains(err.Error(), "no such function") {
				t.Errorf("the old process's %s, %s, at schema 9: %v, want no such function", name, how, err)
			}
		}
	}
	if diff := cmp.Diff(before, dumpTables(t, db)); diff != "" {
		t.Errorf("the old process's writes changed rows (-before +after):\n%s", diff)
	}
	db.Close()
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, m := range []transcript.Message{
		{Author: opAuthor, Content: "deploy at two"},
		{Author: opAuthor, Corrects: 4, Content: "deploy at three"},
		{Author: opAuthor, Corrects: 1, Redacted: true},
	} {
		if _, err := st.Append(ctx, "eng", m); err != nil {
			t.Fatalf("append %+v at schema 9: %v", m, err)
		}
	}
	res, err := st.Log("eng").(transcript.Searcher).Search(ctx, transcript.SearchQuery{Text: "deploy", Viewer: opAuthor})
	if err != nil || len(res.Messages) != 1 || res.Messages[0].Seq != 4 {
		t.Errorf("search after this version's writes = %+v, %v; want row 4 alone", res, err)
	}
}
