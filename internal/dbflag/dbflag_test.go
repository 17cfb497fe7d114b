package dbflag

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/stores"
)

func TestOpenReadChangesNothing(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	_, err := Flags{DB: db}.OpenRead(t.Context())
	if err == nil || !strings.Contains(err.Error(), "no database at "+db) || !strings.Contains(err.Error(), CreatingCommands) {
		t.Fatalf("OpenRead of a missing file: %v", err)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenRead created %s (%v)", db, err)
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Flags{DB: db}.OpenRead(t.Context())
	var hint *HintError
	if !errors.As(err, &hint) || !errors.Is(err, sqlitestore.ErrNotStore) || hint.Hint != CreatingCommands+" creates a store in it" {
		t.Fatalf("OpenRead of an empty file: %v", err)
	}
	if info, err := os.Stat(db); err != nil || info.Size() != 0 {
		t.Fatalf("OpenRead wrote to an empty file: %v, %v", info, err)
	}
}

func TestSchemeIsUsageError(t *testing.T) {
	f := Flags{DB: "mysql://ana:s3cret@host/db", Create: true}
	for name, err := range map[string]error{
		"Open":         func() error { _, err := f.Open(t.Context()); return err }(),
		"OpenRead":     func() error { _, err := f.OpenRead(t.Context()); return err }(),
		"OpenExisting": func() error { _, err := f.OpenExisting(t.Context()); return err }(),
		"OpenForDesk":  func() error { _, _, err := f.OpenForDesk(t.Context()); return err }(),
	} {
		if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "mysql://") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestKeyValueConnectionStringIsRefused: a --db that is a key/value connection string is a
// usage error of every open, which names it with its password xxxxx, and no SQLite file is
// made of it.
func TestKeyValueConnectionStringIsRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	f := Flags{DB: "dbname=chat password=s3cretPW", Desk: "main", Create: true}
	for name, err := range map[string]error{
		"Open":         func() error { _, err := f.Open(t.Context()); return err }(),
		"OpenRead":     func() error { _, err := f.OpenRead(t.Context()); return err }(),
		"OpenExisting": func() error { _, err := f.OpenExisting(t.Context()); return err }(),
		"OpenForDesk":  func() error { _, _, err := f.OpenForDesk(t.Context()); return err }(),
	} {
		want := "--db dbname=chat password=xxxxx is a key/value connection string; give a PostgreSQL database as a postgres:// URL"
		if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cretPW") {
			t.Errorf("%s: %v; want a usage error saying %q", name, err, want)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("the refused opens made %v", entries)
	}
	// One that begins with another key libpq reads, and one whose password pair comes
	// last, are refused alike, without their password; a file whose name merely holds "="
	// is a file.
	for _, db := range []string{"keepalives=1 password=s3cretPW", "sslrootcert=/etc/ssl/ca.pem host=db password=s3cretPW dbname=chat", "password=s3cretPW sslrootcert=file:///ca.pem"} {
		_, err := Flags{DB: db}.OpenRead(t.Context())
		if !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "key/value connection string") || strings.Contains(err.Error(), "s3cretPW") {
			t.Errorf("OpenRead(%q): %v; want a usage error that names no password", db, err)
		}
	}
	if _, err := (Flags{DB: "a=b.db"}).OpenRead(t.Context()); err == nil || errors.Is(err, cliflag.ErrUsage) {
		t.Errorf("OpenRead of a missing file a=b.db: %v; want it named as a missing file", err)
	}
	var note strings.Builder
	NoteCreatedDB(&note, "keepalives=1 password=s3cretPW")
	if !strings.HasPrefix(note.String(), "created a new database at keepalives=1 password=xxxxx (/") || strings.Contains(note.String(), "s3cretPW") {
		t.Errorf("NoteCreatedDB: %q", note.String())
	}
}

func TestStandbysNeedPostgres(t *testing.T) {
	f := Flags{DB: filepath.Join(t.TempDir(), "t.db"), Opts: stores.Options{Standbys: []string{"postgres://standby/x"}}}
	if _, err := f.Open(t.Context()); !errors.Is(err, cliflag.ErrUsage) || !strings.Contains(err.Error(), "--read-db needs a PostgreSQL --db") {
		t.Fatalf("Open with --read-db and SQLite: %v", err)
	}
}

func TestOpenForDesk(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	f := Flags{DB: db, Desk: "eng"}
	if _, _, err := f.OpenForDesk(t.Context()); err == nil || !strings.Contains(err.Error(), "add --create to make both") {
		t.Fatalf("OpenForDesk of a missing database without create: %v", err)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("OpenForDesk without create created %s (%v)", db, err)
	}
	var stderr bytes.Buffer
	f.Create = true
	st, isNew, err := f.WithIndexProgress(&stderr, false).OpenForDesk(t.Context())
	if err != nil || !isNew {
		t.Fatalf("OpenForDesk with create: new %v, %v", isNew, err)
	}
	if !strings.Contains(stderr.String(), "created a new database at "+db) {
		t.Errorf("no note of the new database: %q", stderr.String())
	}
	if _, err := st.Append(t.Context(), "ops", transcript.Message{Author: transcript.Operator(), Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	f.Create = false
	_, _, err = f.OpenForDesk(t.Context())
	var noDesk *NoDeskError
	if !errors.As(err, &noDesk) || err.Error() != `no desk "eng"; the desks are: ops (add --create to make desk "eng")` {
		t.Fatalf("OpenForDesk of a desk the database does not hold: %v", err)
	}
	if _, err := (Flags{DB: db, Desk: "ops"}).OpenDesk(t.Context()); err != nil {
		t.Fatalf("OpenDesk of a desk it holds: %v", err)
	}
	if _, err := (Flags{DB: db, Desk: ".."}).OpenDesk(t.Context()); err == nil || !strings.Contains(err.Error(), "invalid desk name") {
		t.Fatalf("OpenDesk of an invalid name: %v", err)
	}
	if _, err := (Flags{DB: db, Desk: "eng"}).OpenThread(t.Context(), 1, transcript.Operator()); !errors.As(err, &noDesk) || noDesk.Desk != "eng" {
		t.Fatalf("OpenThread of a desk the database does not hold: %v", err)
	}
	if _, err := (Flags{DB: db, Desk: "ops"}).OpenThread(t.Context(), 2, transcript.Operator()); err == nil || err.Error() != `no thread #2: desk "ops" holds rows #1 to #1` {
		t.Fatalf("OpenThread of a thread the desk does not hold: %v", err)
	}
}

// TestCheckThreadForAViewer checks that a thread whose root viewer may not read (an aside
// not addressed to it) is refused in the same words as a thread the desk does not hold, and
// that the thread's readers and the operator are let through.
func TestCheckThreadForAViewer(t *testing.T) {
	db := filepath.Join(t.TempDir(), "t.db")
	st, err := Flags{DB: db}.Open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	triage, review := transcript.Agent("triage", ""), transcript.Agent("review", "")
	for _, m := range []transcript.Message{
		{Author: transcript.Operator(), Content: "hello"},
		{Author: transcript.Operator(), Content: "aside", Audience: []transcript.Author{triage}},
	} {
		if _, err := st.Append(t.Context(), "eng", m); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	f := Flags{DB: db, Desk: "eng"}
	for _, thread := range []transcript.Sequence{2, 3} {
		_, err := f.OpenThread(t.Context(), thread, review)
		want := fmt.Sprintf(`no thread #%d that agent:review may read: desk "eng" holds rows #1 to #2`, thread)
		if err == nil || err.Error() != want {
			t.Errorf("OpenThread(%d) as %v: %v; want %s", thread, review, err, want)
		}
	}
	for _, viewer := range []transcript.Author{triage, transcript.Operator()} {
		st, err := f.OpenThread(t.Context(), 2, viewer)
		if err != nil {
			t.Errorf("OpenThread(2) as %v: %v", viewer, err)
			continue
		}
		st.Close()
	}
}

func TestFlags(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.AddWriting(fs, "main")
	if err := fs.Parse([]string{"--desk", ".."}); err == nil || !strings.Contains(err.Error(), "invalid desk name") {
		t.Fatalf("a writing --desk took ..: %v", err)
	}
	t.Setenv(Env, "from-env.db")
	if err := fs.Parse([]string{"--desk", "ops"}); err != nil {
		t.Fatal(err)
	}
	if err := ApplyEnv(fs); err != nil || f.DB != "from-env.db" || f.Desk != "ops" {
		t.Fatalf("ApplyEnv: db %q desk %q, %v", f.DB, f.Desk, err)
	}
}
