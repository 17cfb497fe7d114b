package main

import (
	"context"
	"database/sql"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript/internal/dirsum"
)

// withDB returns the command line args with --db db after the command's name (two words
// for token's).
func withDB(args []string, db string) []string {
	n := 1
	if args[0] == "token" {
		n = 2
	}
	return slices.Concat(args[:n], []string{"--db", db}, args[n:])
}

// TestForeignSQLiteRefused: another program's SQLite database (one invoices table) is
// refused by the commands that read and by those that write, and not a byte changes; the
// same for a file that is no SQLite database and a directory, each said in words.
func TestForeignSQLiteRefused(t *testing.T) {
	c := newCLI(t, "")
	other := c.path("other.db")
	db, err := sql.Open("sqlite", "file:"+other)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER); INSERT INTO invoices (total) VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	c.writeFile("notes.txt", []byte(strings.Repeat("not a database\n", 100)))
	if err := os.Mkdir(c.path("dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	commands := [][]string{
		{"view"}, {"export"}, {"token", "list"}, {"search", "hi"},
		{"append", "--as", "person:ana", "hi"}, {"token", "add", "--as", "person:ana"}, {"demo"},
	}
	for _, target := range []struct{ db, says string }{
		{"other.db", "transcript: other.db is a SQLite database, but not a transcript store (its tables: invoices); it was left unchanged\n"},
		{"notes.txt", "transcript: notes.txt is not a SQLite database\n"},
		{"dir", "transcript: dir is a directory, not a database file\n"},
	} {
		for _, args := range commands {
			before := dirsum.Of(t, c.dir)
			full := withDB(args, target.db)
			r := c.want(exitError, full...)
			if r.stderr != target.says {
				t.Errorf("transcript %s: stderr %q, want %q", strings.Join(full, " "), r.stderr, target.says)
			}
			if after := dirsum.Of(t, c.dir); !maps.Equal(before, after) {
				t.Errorf("transcript %s changed the directory", strings.Join(full, " "))
			}
		}
	}
}

// TestEmptyFileInitializedByAppend: a file of no bytes is no store to view, which leaves it
// so, and becomes one at the first append.
func TestEmptyFileInitializedByAppend(t *testing.T) {
	c := newCLI(t, "empty.db")
	c.writeFile("empty.db", nil)
	if r := c.want(exitError, "view"); !strings.Contains(r.stderr, "empty.db is empty") {
		t.Errorf("view of an empty file: %s", r)
	}
	if info, err := os.Stat(c.path("empty.db")); err != nil || info.Size() != 0 {
		t.Fatalf("after view, the empty file: %v, %v", info, err)
	}
	c.ok("append", "--create", "--as", "person:ana", "hello")
	if out := c.ok("view"); !strings.Contains(out, "hello") {
		t.Errorf("view after the append: %q", out)
	}
}

// TestStoreErrorsSayEachThingOnce: a refused append, a --db of an unsupported URL scheme
// and an unreachable PostgreSQL server are each said once, with no password.
func TestStoreErrorsSayEachThingOnce(t *testing.T) {
	c := newCLI(t, "desk.db")
	c.ok("append", "--desk", "eng", "--create", "--as", "person:ana", "hi")
	r := c.want(exitError, "append", "--desk", "eng", "--as", "person:ana", "--parent", "999", "hi")
	if want := "transcript: reply to row 999 of desk \"eng\": no such row that person:ana may read\n"; r.stderr != want {
		t.Errorf("append with parent 999: stderr %q, want %q", r.stderr, want)
	}

	c.db = ""
	for _, args := range [][]string{{"view"}, {"append", "--as", "person:ana", "hi"}} {
		full := withDB(args, "mysql://ana:s3cret-pw@db.example/desks")
		r := c.want(exitUsage, full...)
		if !strings.Contains(r.stderr, "the scheme mysql:// is not supported") || strings.Contains(r.stderr, "s3cret-pw") {
			t.Errorf("transcript %s: %s", strings.Join(full, " "), r)
		}
		if _, err := os.Stat(c.path("mysql:")); err == nil {
			t.Errorf("transcript %s made a directory mysql:", strings.Join(full, " "))
		}
	}

	r = c.want(exitError, "view", "--db", "postgres://ana:s3cret-pw@127.0.0.1:1/desks?connect_timeout=5")
	if strings.Count(r.stderr, "connection refused") != 1 || strings.Count(r.stderr, "\n") != 1 || strings.Contains(r.stderr, "s3cret-pw") {
		t.Errorf("view of an unreachable server: stderr %q, want the refusal once, on one line, without the password", r.stderr)
	}
}

// TestForeignPostgresRefused: a PostgreSQL database holding another program's table is
// refused by view, search and append, which leave its tables as they were, until append is
// given --init-db.
func TestForeignPostgresRefused(t *testing.T) {
	dsn := pgDatabase(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(t.Context(), `CREATE TABLE invoices (id bigint PRIMARY KEY)`); err != nil {
		t.Fatal(err)
	}
	tables := func() []string {
		var names []string
		if err := pool.QueryRow(t.Context(), `SELECT array_agg(table_name::text ORDER BY table_name) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&names); err != nil {
			t.Fatal(err)
		}
		return names
	}
	c := newCLI(t, dsn)
	for _, args := range [][]string{{"view"}, {"search", "hi"}, {"append", "--as", "person:ana", "hi"}} {
		r := c.want(exitError, args...)
		if !strings.Contains(r.stderr, "holds other tables (public.invoices) but no transcript store") {
			t.Errorf("transcript %s: %s", args[0], r)
		}
		if got := tables(); !slices.Equal(got, []string{"invoices"}) {
			t.Fatalf("after transcript %s, the tables: %v", args[0], got)
		}
	}
	c.ok("append", "--init-db", "--create", "--as", "person:ana", "hi")
	if out := c.ok("view"); !strings.Contains(out, "hi") {
		t.Errorf("view after append --init-db: %q", out)
	}
}

// TestReadsLeaveNoFile: the commands that read a store leave its directory as they found
// it: no write-ahead log or index beside the file after view, export, desks or search.
func TestReadsLeaveNoFile(t *testing.T) {
	c := newCLI(t, "")
	db := c.path("transcript.db")
	c.ok("append", "--db", db, "--create", "hello")
	before := dirsum.Of(t, c.dir)
	for _, args := range [][]string{{"view"}, {"export"}, {"desks"}, {"search", "hello"}} {
		c.ok(withDB(args, db)...)
		if after := dirsum.Of(t, c.dir); !maps.Equal(before, after) {
			t.Errorf("%s changed the directory: %v, then %v", args[0], slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
		}
	}
}
