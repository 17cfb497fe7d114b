package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// correctionColumns are the columns of messages that schema version 8 added, with the value
// every row written before it holds: dumpTables leaves a column out of a row while it holds
// that value, so that a dump of an older file and of the file migrated since compare equal.
var correctionColumns = map[string]int64{"corrects": 0, "redacted": 0, "revised": 0}

// dumpTables returns every row of every table of db but schema_version, books, the search
// index's (message_terms and its shadow tables, which version 9 adds, and the key and reader
// sets version 10 adds; version 10 fills them) and sqlite_sequence (SQLite's, from version
// 14), as text, by table: what a migration that only adds tables must leave as it was. A column of
// correctionColumns holding its default is left out.
func dumpTables(t *testing.T, db *sql.DB) map[string][]string {
	t.Helper()
	ctx := t.Context()
	rows, err := db.QueryContext(ctx, `SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT IN ('schema_version', 'books', 'search_key', 'reader_sets', 'reader_set_members', 'sqlite_sequence') AND name NOT LIKE 'message\_terms%' ESCAPE '\' ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	dump := make(map[string][]string)
	for _, table := range tables {
		rows, err := db.QueryContext(ctx, `SELECT * FROM "`+table+`" ORDER BY 1, 2`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			kept := vals[:0]
			for i, v := range vals {
				if d, ok := correctionColumns[cols[i]]; ok && table == "messages" && v == d {
					continue
				}
				kept = append(kept, v)
			}
			dump[table] = append(dump[table], fmt.Sprintf("%q", kept))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
	}
	return dump
}

// TestMigrateFromV6 writes rows with the version 6 schema, which knew no books (an aside, a
// keyed row and tokens among them), then opens the file: Open adds the books table and
// changes no row of any other, the desks read back as they were, tokens authenticate, no
// book exists, and books can be saved and loaded, also for a desk that holds no row, which
// gets no desk row from its book.
func TestMigrateFromV6(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v6.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 6); err != nil || found != 0 {
		t.Fatalf("migrate to version 6: found %d, %v", found, err)
	}
	want := writeOldDesk(t, db, time.Date(2026, 5, 20, 9, 0, 0, 321_000, time.UTC))
	_, tok := newToken(t, "eng", triageAgent, 0)
	if _, err := db.ExecContext(ctx, `INSERT INTO tokens (id, hash, desk, kind, ident, label, created_us) VALUES (?, ?, 'eng', 3, 'triage', 'Triage', ?)`,
		tok.ID, tok.Hash[:], tok.Created.UnixMicro()); err != nil {
		t.Fatal(err)
	}
	before := dumpTables(t, db)
	db.Close()
	st := openMigrated(t, path, 6, before, want)
	if got, err := st.TokenByHash(ctx, tok.Hash); err != nil || got != tok {
		t.Errorf("TokenByHash after the migration = %+v, %v; want %+v", got, err, tok)
	}
	if b, v, err := st.LoadBook(ctx, "eng", triageAgent); err != nil || v != 0 || b.Len() != 0 {
		t.Errorf("LoadBook after the migration = %d states, version %d, %v; want none", b.Len(), v, err)
	}
	for _, desk := range []string{"eng", "no rows yet"} {
		b := storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: desk}, 3))
		if v, err := st.SaveBook(ctx, desk, triageAgent, b, 0); err != nil || v != 1 {
			t.Fatalf("SaveBook on desk %q after the migration = %d, %v", desk, v, err)
		}
		if got, v, err := st.LoadBook(ctx, desk, triageAgent); err != nil || v != 1 || !got.Equal(b) {
			t.Errorf("LoadBook on desk %q after SaveBook: version %d, %v", desk, v, err)
		}
	}
	if desks, err := st.Desks(ctx); err != nil || !cmp.Equal(desks, []string{"eng"}) {
		t.Errorf("Desks after saving books = %q, %v; want [eng]: a book makes no desk", desks, err)
	}
	if diff := cmp.Diff(before, dumpTables(t, st.writer)); diff != "" {
		t.Errorf("saving books changed other tables' rows (-before +after):\n%s", diff)
	}
}

// TestBookQueryPlans: a load and a save over a version are each a point SEARCH of the
// books table's primary key, never a scan, on a file of many books.
func TestBookQueryPlans(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	for i := range 300 {
		desk := []string{"eng", "sales", "ops"}[i%3]
		p := transcript.Agent(fmt.Sprintf("agent%d", i), "Agent")
		if _, err := st.SaveBook(ctx, desk, p, storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: desk}, transcript.Sequence(i))), 0); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.writer.ExecContext(ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	const pk = "SEARCH books USING PRIMARY KEY (desk=? AND kind=? AND ident=?)"
	for _, q := range []struct {
		name, query string
		args        []any
	}{
		{"LoadBook", loadBookSQL, []any{"eng", 3, "agent3"}},
		{"SaveBook over a version", updateBookSQL, []any{"eng", 3, "agent3", 1, "{}"}},
	} {
		steps := queryPlan(t, st, q.query, q.args...)
		t.Logf("%s:\n\t%s", q.name, strings.Join(steps, "\n\t"))
		if len(steps) != 1 || steps[0] != pk {
			t.Errorf("%s: plan %q, want only %q", q.name, steps, pk)
		}
	}
}

// TestBookSchema: the table refuses, even from outside the package, an unknown kind, an
// empty desk, a version below 1, no book, and a second row for one key.
func TestBookSchema(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	if _, err := st.SaveBook(ctx, "eng", triageAgent, sharing.Book{}, 0); err != nil {
		t.Fatal(err)
	}
	insert := `INSERT INTO books (desk, kind, ident, version, book) VALUES (?, ?, ?, ?, ?)`
	for _, bad := range []struct {
		name string
		args []any
	}{
		{"kind 0", []any{"eng", 0, "x", 1, "{}"}},
		{"kind 5", []any{"eng", 5, "x", 1, "{}"}},
		{"an empty desk", []any{"", 3, "x", 1, "{}"}},
		{"version 0", []any{"eng", 3, "x", 0, "{}"}},
		{"no book", []any{"eng", 3, "x", 1, nil}},
		{"a book as a blob", []any{"eng", 3, "x", 1, []byte("{}")}},
		{"the key twice", []any{"eng", 3, "triage", 1, "{}"}},
	} {
		if _, err := st.writer.ExecContext(ctx, insert, bad.args...); err == nil {
			t.Errorf("%s: the schema took it", bad.name)
		}
	}
}

// TestStoredBookCorrupt: a row whose book does not decode, or names another desk, is an
// error matching sharing.ErrInvalidBook, not a book.
func TestStoredBookCorrupt(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	for i, text := range []string{
		`{"states":[{"conversation":{"desk":"eng"},"watermark":1,"present":[1]}]}`,
		`{"states":[{"conversation":{"desk":"sales"},"watermark":1}]}`,
		`not json`,
	} {
		id := fmt.Sprint("corrupt", i)
		if _, err := st.writer.ExecContext(ctx, `INSERT INTO books (desk, kind, ident, version, book) VALUES ('eng', 3, ?, 1, ?)`, id, text); err != nil {
			t.Fatal(err)
		}
		if b, v, err := st.LoadBook(ctx, "eng", transcript.Agent(id, "")); !errors.Is(err, sharing.ErrInvalidBook) {
			t.Errorf("LoadBook of %s = %d states, version %d, %v; want sharing.ErrInvalidBook", text, b.Len(), v, err)
		}
	}
}

// TestBooksAcrossStores: two Stores on one file (two service processes, say), their
// books.Update calls racing on one participant's book, lose no acknowledgement.
func TestBooksAcrossStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	var stores []books.Store
	for range 2 {
		st, err := Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		stores = append(stores, st)
	}
	storetest.ConcurrentBookRule(t, stores...)
}

// TestBooksClosedOrCanceled: after Close both book methods are ErrClosed; with a done ctx
// each fails with ctx's error and writes nothing.
func TestBooksClosedOrCanceled(t *testing.T) {
	st := openTempInternal(t)
	b := storetest.BookOf(t, sharing.Initialized(transcript.Conversation{Desk: "eng"}, 1))
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	calls := func(ctx context.Context) map[string]error {
		_, _, load := st.LoadBook(ctx, "eng", triageAgent)
		_, save := st.SaveBook(ctx, "eng", triageAgent, b, 0)
		return map[string]error{"LoadBook": load, "SaveBook": save}
	}
	for name, err := range calls(canceled) {
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s with a canceled ctx: %v, want context.Canceled", name, err)
		}
	}
	if _, v, err := st.LoadBook(t.Context(), "eng", triageAgent); err != nil || v != 0 {
		t.Errorf("LoadBook after a canceled save: version %d, %v; want none", v, err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	for name, err := range calls(t.Context()) {
		if !errors.Is(err, ErrClosed) {
			t.Errorf("%s after Close: %v, want ErrClosed", name, err)
		}
	}
}
