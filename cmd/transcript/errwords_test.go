package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// packageNames are the names of the module's packages, which no error the command prints
// holds: the user ran a command, not a package.
var packageNames = []string{"sqlitestore", "pgstore", "posting:", "deskmcp", "importer:", "transcript: transcript:", "(14)"}

// checkNoPackageName fails the test if r's standard error names a package.
func checkNoPackageName(t *testing.T, r result) {
	t.Helper()
	for _, name := range packageNames {
		if strings.Contains(r.stderr, name) {
			t.Errorf("standard error names %q:\n%s", name, r)
		}
	}
}

// TestErrorsNameWhatTheUserDid: the built command says what the user asked for and what is
// wrong with it, once, in the command's terms, without a package's name.
func TestErrorsNameWhatTheUserDid(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "desk.db")
	c.ok("append", "--create", "--desk", "eng", "--as", "person:ana", "deploy at 22:00") // 1
	c.ok("edit", "--desk", "eng", "--as", "person:ana", "1", "deploy at 23:00")          // 2, which corrects 1
	for _, tc := range []struct {
		name   string
		code   int
		args   []string
		stderr string
	}{
		{"a redaction of a correction", exitError, []string{"redact", "--desk", "eng", "2"},
			"transcript: redact row 2 of desk \"eng\": it is a correction; redact the row it corrects (#1)\n"},
		{"an edit of a correction", exitError, []string{"edit", "--desk", "eng", "--as", "person:ana", "2", "x"},
			"transcript: edit row 2 of desk \"eng\": it is a correction; edit the row it corrects (#1)\n"},
		{"a reply to a missing row", exitError, []string{"append", "--desk", "eng", "--parent", "9", "hi"},
			"transcript: reply to row 9 of desk \"eng\": no such row that operator may read\n"},
		{"a blank append", exitUsage, []string{"append", "--desk", "eng", "  "},
			"transcript: usage: append to desk \"eng\": the message is blank, and no view shows a blank message (give its text, or --allow-blank)\n"},
		{"a blank edit", exitUsage, []string{"edit", "--desk", "eng", "--as", "person:ana", "1", " "},
			"transcript: usage: edit row 1 of desk \"eng\": the new text is blank (empty or white space only); give the text, or redact the row to erase it\n"},
		{"a bad desk name", exitUsage, []string{"append", "--desk", "a b", "hi"},
			"transcript: usage: append: invalid value for flag -desk (not quoted: it could be a secret): invalid desk name: character ' ' at byte 1 is not a letter, digit, '.', '_' or '-' (see transcript help append)\n"},
		{"a flag before the command", exitUsage, []string{"--desk", "eng", "view"},
			"transcript: usage: the command comes first, its flags after it: did you mean transcript view --desk eng?\n"},
		{"a desk as an argument", exitUsage, []string{"view", "eng"},
			"transcript: usage: view takes no arguments; did you mean --desk eng?\n"},
		{"a thread as an argument", exitUsage, []string{"view", "--desk", "eng", "1"},
			"transcript: usage: view takes no arguments; did you mean --thread 1?\n"},
	} {
		r := c.run(tc.args...)
		if r.code != tc.code || r.stderr != tc.stderr || r.stdout != "" {
			t.Errorf("%s: want exit %d and %q, got:\n%s", tc.name, tc.code, tc.stderr, r)
		}
		checkNoPackageName(t, r)
	}
	if got := c.ok("append", "--desk", "eng", "--allow-blank", "  "); got != "3\n" {
		t.Errorf("append --allow-blank of a blank message printed %q, want 3", got)
	}
	r := c.want(exitError, "edit", "--desk", "eng", "3", "now something")
	if want := "transcript: edit row 3 of desk \"eng\": it is blank: it holds nothing to edit\n"; r.stderr != want {
		t.Errorf("an edit of a blank row: stderr %q, want %q", r.stderr, want)
	}
}

// TestMissingDirectory: a --db in a directory that does not exist is refused in words that
// say so, and nothing is created.
func TestMissingDirectory(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{
		{"append", "--create", "--db", "./x/y.db", "hi"},
		{"import", "--db", "./x/y.db", "-"},
		{"token", "add", "--create", "--db", "./x/y.db", "--desk", "eng", "--as", "agent:a"},
	} {
		r := c.runIn(`{"author":{"type":"operator"},"content":"hi"}`+"\n", args...)
		if want := "transcript: open database ./x/y.db: directory ./x does not exist\n"; r.code != exitError || r.stderr != want {
			t.Errorf("want exit 1 and %q, got:\n%s", want, r)
		}
	}
	if err := os.WriteFile(filepath.Join(c.dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.run("append", "--create", "--db", "f/y.db", "hi")
	if want := "transcript: open database f/y.db: f is not a directory\n"; r.code != exitError || r.stderr != want {
		t.Errorf("want exit 1 and %q, got:\n%s", want, r)
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 1 {
		t.Errorf("the refused commands left %d entries in the directory, want only f", len(entries))
	}
}

// TestImportInterrupted: an import whose context ends (Ctrl-C) says it was interrupted and
// that nothing was imported, not "context canceled", and stores nothing.
func TestImportInterrupted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "desk.db")
	if code, _, stderr := runInProcess("", "append", "--create", "--db", db, "--desk", "eng", "first"); code != exitOK {
		t.Fatalf("append: exit %d\n%s", code, stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut strings.Builder
	code := run(ctx, []string{"import", "--db", db, "--desk", "eng", "-"},
		newEnv(strings.NewReader(`{"author":{"type":"operator"},"content":"second"}`+"\n"), &out, &errOut))
	if want := "transcript: import interrupted: nothing was imported\n"; code != exitError || errOut.String() != want {
		t.Errorf("an interrupted import: exit %d, %q; want 1 and %q", code, errOut.String(), want)
	}
	if _, stdout, _ := runInProcess("", "export", "--db", db, "--desk", "eng"); strings.Count(stdout, "\n") != 1 {
		t.Errorf("after the interrupted import the desk holds:\n%s\nwant only its first row", stdout)
	}
}

// TestCorrectionOfARedactedRowGivesNoAdviceToCorrectIt: a correction of a correction is
// refused with the advice to correct the row it corrects, unless that row was redacted,
// which takes no more corrections: then the refusal says so, and no advice that would fail.
func TestCorrectionOfARedactedRowGivesNoAdviceToCorrectIt(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	for _, args := range [][]string{
		{"append", "--db", db, "--create", "--as", "person:ana:Ana", "deploy at 22:00"}, // 1
		{"edit", "--db", db, "--as", "person:ana", "1", "deploy at 23:00"},              // 2
		{"redact", "--db", db, "1"}, // 3
	} {
		if code, _, stderr := runInProcess("", args...); code != exitOK {
			t.Fatalf("transcript %s: exit %d\n%s", strings.Join(args, " "), code, stderr)
		}
	}
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"edit", "--db", db, "--as", "person:ana", "2", "deploy at 21:00"},
			"transcript: edit row 2 of desk \"main\": it is a correction of row #1, which was redacted and takes no more corrections\n"},
		{[]string{"redact", "--db", db, "3"},
			"transcript: redact row 3 of desk \"main\": it is a correction of row #1, which was redacted and takes no more corrections\n"},
		{[]string{"redact", "--db", db, "1"},
			"transcript: redact row 1 of desk \"main\": it was redacted: its content is erased, and it takes no more corrections\n"},
	} {
		if code, _, stderr := runInProcess("", tc.args...); code != exitError || stderr != tc.stderr {
			t.Errorf("transcript %s: exit %d, %q; want exit 1 and %q", strings.Join(tc.args, " "), code, stderr, tc.stderr)
		}
	}
}
