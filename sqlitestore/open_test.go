package sqlitestore

import (
	"database/sql"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dirsum"
)

// foreignDatabase writes another program's SQLite database, one invoices table, as that
// program would (no WAL, no pragma of ours), in a directory of its own.
func foreignDatabase(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "other.db")
	db, err := sql.Open(driverName, "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY, total INTEGER); INSERT INTO invoices (total) VALUES (42)`); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestOpenRefusesWhatIsNoStore: another program's SQLite database (however much it looks like
// a store: tables named messages and schema_version beside its own, at version 1 or at
// SchemaVersion; or in WAL mode), a file that is no SQLite database and a directory are
// refused by Open, with or without ReadOnly, with an error that matches ErrNotStore and says
// what the path is; and nothing in the directory changes, nor does a file appear beside it.
func TestOpenRefusesWhatIsNoStore(t *testing.T) {
	notes := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(notes, []byte(strings.Repeat("not a database at all\n", 100)), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path, says string
	}{
		{"another program's database", foreignDatabase(t), "other.db is a SQLite database, but not a transcript store (its tables: invoices); it was left unchanged"},
		{"another program's WAL-mode database", walForeignDatabase(t), "wal.db is a SQLite database, but not a transcript store (its tables: invoices); it was left unchanged"},
		{"a lookalike at version 1", lookalikeDatabase(t, 1), "lookalike.db is a SQLite database, but not a transcript store (its tables: invoices, messages, schema_version); it was left unchanged"},
		{"a lookalike at the current version", lookalikeDatabase(t, SchemaVersion), "lookalike.db is a SQLite database, but not a transcript store (its tables: invoices, messages, schema_version); it was left unchanged"},
		{"a text file", notes, "notes.txt is not a SQLite database"},
		{"a directory", t.TempDir(), "is a directory, not a database file"},
	}
	for _, c := range cases {
		for _, opts := range [][]Option{nil, {ReadOnly()}} {
			dir := filepath.Dir(c.path)
			before := dirsum.Of(t, dir)
			st, err := Open(t.Context(), c.path, opts...)
			if err == nil {
				st.Close()
				t.Fatalf("%s (%d options): Open succeeded, want an error matching ErrNotStore", c.name, len(opts))
			}
			if !errors.Is(err, ErrNotStore) || !strings.HasSuffix(err.Error(), c.says) || strings.Count(err.Error(), "sqlitestore:") != 1 {
				t.Errorf("%s (%d options): %v, want ErrNotStore, saying %q once", c.name, len(opts), err, c.says)
			}
			if after := dirsum.Of(t, dir); !maps.Equal(before, after) {
				t.Errorf("%s (%d options): the directory changed: %v, then %v", c.name, len(opts), before, after)
			}
		}
	}
}

// TestOpenInitializesAnEmptyFile: a file of no bytes is a new store to Open, and nothing to
// ReadOnly, which leaves it empty.
func TestOpenInitializesAnEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(t.Context(), path, ReadOnly()); !errors.Is(err, ErrNotStore) {
		t.Errorf("ReadOnly Open of an empty file: %v, want ErrNotStore", err)
	}
	if info, err := os.Stat(path); err != nil || info.Size() != 0 {
		t.Fatalf("after the ReadOnly Open: %v, %v; want the file still empty", info, err)
	}
	st, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open of an empty file: %v", err)
	}
	defer st.Close()
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: transcript.Operator(), Content: "hi"}); err != nil {
		t.Fatal(err)
	}
}

// TestOpenReadOnly: ReadOnly opens a store at SchemaVersion and reads it, refuses every
// write with ErrReadOnly, refuses a missing file without creating it, and refuses an older
// schema without migrating it.
func TestOpenReadOnly(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	if _, err := Open(ctx, missing, ReadOnly()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadOnly Open of a missing file: %v, want fs.ErrNotExist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("after a ReadOnly Open, the missing file: %v, want it still missing", err)
	}

	path := filepath.Join(dir, "desk.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	ro, err := Open(ctx, path, ReadOnly())
	if err != nil {
		t.Fatalf("ReadOnly Open of a store: %v", err)
	}
	defer ro.Close()
	if desks, err := ro.Desks(ctx); err != nil || !slices.Equal(desks, []string{"eng"}) {
		t.Errorf("Desks: %v, %v; want [eng]", desks, err)
	}
	if _, err := ro.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "more"}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("Append: %v, want ErrReadOnly", err)
	}
	if err := ro.RevokeToken(ctx, "tok_000000000000", time.Now()); !errors.Is(err, ErrReadOnly) {
		t.Errorf("RevokeToken: %v, want ErrReadOnly", err)
	}

	old := filepath.Join(dir, "old.db")
	db := openRaw(t, old)
	if _, err := migrate(ctx, db, SchemaVersion-1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, old, ReadOnly())
	var schemaErr *SchemaError
	if !errors.As(err, &schemaErr) || !errors.Is(err, ErrSchemaBehind) || schemaErr.Found != SchemaVersion-1 {
		t.Errorf("ReadOnly Open of a version %d store: %v, want a *SchemaError matching ErrSchemaBehind", SchemaVersion-1, err)
	}
	if v := schemaVersion(t, old); v != SchemaVersion-1 {
		t.Errorf("schema version %d after the ReadOnly Open, want %d", v, SchemaVersion-1)
	}
}

// walForeignDatabase writes another program's SQLite database in WAL mode, closed, so that
// neither its write-ahead log nor its index exists.
func walForeignDatabase(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "wal.db")
	db, err := sql.Open(driverName, "file:"+filepath.ToSlash(path)+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO invoices VALUES (1)`); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// lookalikeDatabase writes another program's database whose tables are messages,
// schema_version (at version) and invoices.
func lookalikeDatabase(t *testing.T, version int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "lookalike.db")
	db, err := sql.Open(driverName, "file:"+filepath.ToSlash(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE messages (id INTEGER PRIMARY KEY, body TEXT); CREATE TABLE schema_version (version INTEGER); CREATE TABLE invoices (id INTEGER PRIMARY KEY); INSERT INTO schema_version VALUES (?)`, version); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadOnlyLeavesNoFile: a ReadOnly Store that reads a closed store leaves its directory
// as it found it: SQLite's write-ahead log and index, which it makes to read the WAL-mode
// file, are gone after Close.
func TestReadOnlyLeavesNoFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "transcript.db")
	st, err := Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: transcript.Operator(), Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	before := dirsum.Of(t, filepath.Dir(path))
	ro, err := Open(t.Context(), path, ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	if pg, err := ro.Log("eng").ReadBefore(t.Context(), 0, 10); err != nil || len(pg.Messages) != 1 {
		t.Fatalf("read %+v, %v; want the one row", pg, err)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	if after := dirsum.Of(t, filepath.Dir(path)); !maps.Equal(before, after) {
		t.Errorf("the directory changed: %v, then %v", slices.Sorted(maps.Keys(before)), slices.Sorted(maps.Keys(after)))
	}
}

// TestOpenNeverSwitchesAForeignFileToWAL: a file that became another program's database
// after inspect looked (the writer's connection finds it so under the write lock) is
// refused, and stays in its journal mode.
func TestOpenNeverSwitchesAForeignFileToWAL(t *testing.T) {
	path := foreignDatabase(t)
	s := &Store{authors: newAuthorCache(), audiences: newAudienceCache()}
	err := s.open(t.Context(), path, defaultConfig())
	s.closeAll()
	if !errors.Is(err, ErrNotStore) {
		t.Errorf("open: %v, want ErrNotStore", err)
	}
	if wal, err := readHeader(path); err != nil || wal {
		t.Errorf("after the open: WAL mode %v (%v), want the file left in its rollback journal", wal, err)
	}
}
