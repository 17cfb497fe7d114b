package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
)

// TestCompactPostgres runs the built command, transcript compact --db DSN, on a server of
// its own with the settings pgstore's documentation names, after rows holding words of
// their own were written and a third of them redacted: it exits 0 with no warning, and
// then no file under the server's data directory, pg_wal included, holds an erased word,
// while every live word is still in a table's file (before it, every word is in some
// file: the scan finds what is there).
func TestCompactPostgres(t *testing.T) {
	t.Parallel()
	server := pgtest.Own(t, "cmd/transcript")
	if err := server.Configure(pgtest.ErasureConf); err != nil {
		t.Fatal(err)
	}
	st, err := pgstore.Open(t.Context(), server.DSN)
	if err != nil {
		t.Fatal(err)
	}
	words := pgtest.WriteErasedWords(t, st, "main", 60, nil)
	st.Close()
	all := append(slices.Clone(words.Erased), words.Live...)
	found, err := pgtest.FilesHolding(server.DataDir(), all)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range all {
		if len(found[w]) == 0 {
			t.Fatalf("before compact, no file of the data directory holds %q: the scan finds nothing", w)
		}
	}

	c := newCLI(t, server.DSN)
	r := c.want(exitOK, "compact")
	if !strings.Contains(r.stdout, "transcript_messages") || !strings.Contains(r.stdout, "pg_statistic") || r.stderr != "" {
		t.Errorf("compact with the documented settings: want the tables it rewrote and no warning, got:\n%s", r)
	}
	found, err = pgtest.FilesHolding(server.DataDir(), all)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range words.Erased {
		if len(found[w]) > 0 {
			t.Errorf("after compact, erased %q is in %v", w, found[w])
		}
	}
	for _, w := range words.Live {
		if !slices.ContainsFunc(found[w], func(f string) bool { return strings.HasPrefix(f, "base/") }) {
			t.Errorf("after compact, live %q is in no table's file (it is in %v)", w, found[w])
		}
	}
	if out := c.ok("search", words.Live[0]); !strings.Contains(out, words.Live[0]) {
		t.Errorf("after compact, search %s finds:\n%s", words.Live[0], out)
	}
}

// TestCompactWarns: on a server of its own whose wal_keep_size keeps WAL back, compact in
// process exits 0 and warns of it, every line of its standard error a warning. (Not the
// shared test server: compact's checkpoints and WAL switches there would hold its standby,
// which other tests read, behind.)
func TestCompactWarns(t *testing.T) {
	t.Parallel()
	server := pgtest.Own(t, "cmd/transcript")
	if err := server.Configure(pgtest.ErasureConf + "wal_keep_size = '64MB'\n"); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runInProcess("", "append", "--db", server.DSN, "--create", "a row"); code != exitOK {
		t.Fatalf("append: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runInProcess("", "compact", "--db", server.DSN)
	if code != exitOK || !strings.Contains(stdout, "rewrote ") {
		t.Fatalf("compact: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if line != "" && !strings.HasPrefix(line, "transcript: warning: ") {
			t.Errorf("compact's standard error holds a line that is not a warning: %q", line)
		}
	}
	if !strings.Contains(stderr, "warning: wal_keep_size is 64 MB") {
		t.Errorf("compact with wal_keep_size set does not warn of it:\n%s", stderr)
	}
}

// TestCompactSQLite: on a SQLite file, compact says that SQLite erases as it writes and
// that the write-ahead log is empty, and leaves none; on a missing file it fails, creating
// nothing.
func TestCompactSQLite(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	db := c.path("desk.db")
	c.ok("append", "--db", db, "--create", "a row")
	c.ok("redact", "--db", db, "1")
	r := c.want(exitOK, "compact", "--db", db)
	if !strings.Contains(r.stdout, "write-ahead log is now checkpointed and empty") {
		t.Errorf("compact on SQLite:\n%s", r)
	}
	if fileExists(db+"-wal") && fileSize(t, db+"-wal") > 0 {
		t.Errorf("after compact, %s-wal holds %d bytes", db, fileSize(t, db+"-wal"))
	}
	missing := c.path("none.db")
	if r := c.want(exitError, "compact", "--db", missing); !strings.Contains(r.stderr, "no database at") {
		t.Errorf("compact of a missing file:\n%s", r)
	}
	if fileExists(missing) {
		t.Errorf("compact of a missing file created it")
	}
}

// TestCompactSQLiteHeldOpen: while another connection holds a read open on the file,
// compact cannot empty the write-ahead log and says so.
func TestCompactSQLiteHeldOpen(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	if code, _, stderr := runInProcess("", "append", "--db", db, "--create", "a row"); code != exitOK {
		t.Fatalf("append: exit %d\n%s", code, stderr)
	}
	raw, err := sql.Open("sqlite", "file:"+db) // modernc.org/sqlite, as sqlitestore registers it
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	tx, err := raw.BeginTx(t.Context(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_schema`).Scan(&n); err != nil { // the read takes its snapshot
		t.Fatal(err)
	}
	if code, _, stderr := runInProcess("", "append", "--db", db, "another row"); code != exitOK {
		t.Fatalf("append: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runInProcess("", "compact", "--db", db)
	if code != exitOK || !strings.Contains(stdout, "another connection was reading the database") {
		t.Errorf("compact while another connection reads the file: exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// fileSize returns the size of the file at path.
func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}
