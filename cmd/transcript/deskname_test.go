package main

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript/internal/desknames"
)

// writingCommands are the commands whose --desk names a desk they may create, each with the
// arguments that make it write.
var writingCommands = map[string][]string{
	"import":    {"import", "-"},
	"append":    {"append", "--create", "--as", "agent:x", "hello"},
	"token add": {"token", "add", "--create", "--as", "agent:x"},
	"demo":      {"demo"},
}

// TestWritingCommandsRefuseBadDeskNames: a command that writes refuses, as a usage error
// and before it opens a database, a --desk transcript.ValidateDesk refuses; it writes to a
// desk with any name the rule accepts.
func TestWritingCommandsRefuseBadDeskNames(t *testing.T) {
	t.Parallel()
	for cmd, args := range writingCommands {
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			for what, desk := range desknames.Refused {
				if strings.ContainsRune(desk, 0) {
					continue // no command line holds a NUL byte
				}
				db := filepath.Join(t.TempDir(), "desk.db")
				code, _, stderr := runInProcess(flowDesk, append(args, "--db", db, "--desk", desk)...)
				if code != exitUsage || !strings.Contains(stderr, "invalid desk name") {
					t.Errorf("%s --desk %q (%s): exit %d, want %d saying the name is invalid\n%s", cmd, desk, what, code, exitUsage, stderr)
				}
				if _, err := os.Stat(db); !os.IsNotExist(err) {
					t.Errorf("%s --desk %q (%s) left a database behind (%v)", cmd, desk, what, err)
				}
			}
			for _, desk := range []string{desknames.Accepted["100 characters"], desknames.Accepted["letters, digits and marks"]} {
				db := filepath.Join(t.TempDir(), "desk.db")
				if code, _, stderr := runInProcess(flowDesk, append(args, "--db", db, "--desk", desk)...); code != exitOK {
					t.Errorf("%s --desk %q: exit %d\n%s", cmd, desk, code, stderr)
				}
			}
		})
	}
}

// TestOldDeskNameStaysReadable: a desk an older version stored under a name the rule
// refuses is listed, viewed and exported as before, and takes no new rows.
func TestOldDeskNameStaysReadable(t *testing.T) {
	t.Parallel()
	db := flowDB(t)
	const old = "eng team"
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE desks SET name = ?1 WHERE name = 'main'`, old); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	if code, stdout, stderr := runInProcess("", "desks", "--db", db); code != exitOK || !strings.Contains(stdout, old) {
		t.Errorf("desks: exit %d, want %q listed\n%s%s", code, old, stdout, stderr)
	}
	if code, stdout, stderr := runInProcess("", "view", "--db", db, "--desk", old, "--as", "person:ana"); code != exitOK || !strings.Contains(stdout, "Deploy #41 is red") {
		t.Errorf("view --desk %q: exit %d, want the desk's rows\n%s%s", old, code, stdout, stderr)
	}
	code, export, stderr := runInProcess("", "export", "--db", db, "--desk", old)
	if code != exitOK || !strings.Contains(export, "Deploy #41 is red") {
		t.Fatalf("export --desk %q: exit %d, want the desk's rows\n%s%s", old, code, export, stderr)
	}
	if code, _, stderr := runInProcess(export, "import", "--db", db, "--desk", "eng-team", "-"); code != exitOK {
		t.Errorf("import of the export under a name the rule accepts: exit %d\n%s", code, stderr)
	}
	if code, _, stderr := runInProcess("", "append", "--db", db, "--desk", old, "--as", "agent:x", "more"); code != exitUsage || !strings.Contains(stderr, "invalid desk name") {
		t.Errorf("append --desk %q: exit %d, want %d saying the name is invalid\n%s", old, code, exitUsage, stderr)
	}
}

// TestReadingCommandNamesTheRule: a read of a desk that does not exist under a name the rule
// refuses says why the name is wrong.
func TestReadingCommandNamesTheRule(t *testing.T) {
	t.Parallel()
	db := flowDB(t)
	code, _, stderr := runInProcess("", "export", "--db", db, "--desk", "..")
	if code == exitOK || !strings.Contains(stderr, `no desk ".." (invalid desk name: ".." names a directory in a path, not a desk); the desks are: main`) {
		t.Errorf("export --desk ..: exit %d, want an error naming the rule\n%s", code, stderr)
	}
}

// flowDB returns a new SQLite database holding flowDesk as desk main.
func flowDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "desk.db")
	if code, _, stderr := runInProcess(flowDesk, "import", "--db", db, "-"); code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	return db
}
