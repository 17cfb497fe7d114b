package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestFlagsAfterArguments types flags after a command's positional arguments: they are
// flags, or usage errors naming them, and never part of a message's content. "--" ends the
// flags.
func TestFlagsAfterArguments(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	mustRun := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := runInProcess("", args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		return stdout
	}
	mustRun("append", "--db", db, "--desk", "t", "--create", "root")
	// The flag after the text makes the message an aside, as typed before it would.
	mustRun("append", "--db", db, "--desk", "t", "--parent", "1", "--as", "agent:bot", "hi", "--to", "person:ana")
	// After "--" everything is text.
	mustRun("append", "--db", db, "--desk", "t", "--", "use", "--to", "to", "address")

	export := strings.Split(strings.TrimSpace(mustRun("export", "--db", db, "--desk", "t")), "\n")
	if len(export) != 3 {
		t.Fatalf("export holds %d rows, want 3:\n%s", len(export), strings.Join(export, "\n"))
	}
	if !strings.Contains(export[1], `"content":"hi"`) || !strings.Contains(export[1], `"audience":[{"type":"person","id":"ana"}]`) {
		t.Errorf("row 2 is not the aside \"hi\" to person:ana: %s", export[1])
	}
	if !strings.Contains(export[2], `"content":"use --to to address"`) || strings.Contains(export[2], "audience") {
		t.Errorf("row 3 is not the public text after --: %s", export[2])
	}

	// An unknown flag after the text is a usage error naming it, and stores nothing.
	code, _, stderr := runInProcess("", "append", "--db", db, "--desk", "t", "hi", "--too", "person:ana")
	if code != exitUsage || !strings.Contains(stderr, "-too") {
		t.Errorf("append hi --too: exit %d, %q; want 2 naming -too", code, stderr)
	}
	if n := len(strings.Split(strings.TrimSpace(mustRun("export", "--db", db, "--desk", "t")), "\n")); n != 3 {
		t.Errorf("after the refused append the desk holds %d rows, want 3", n)
	}

	// Every command parses what follows its arguments: an unknown flag there is named.
	for _, args := range [][]string{
		{"demo", "x"}, {"import", "x.jsonl"}, {"export", "x"}, {"append", "x"}, {"view", "x"},
		{"delta", "x"}, {"token", "add", "x"}, {"token", "list", "x"}, {"token", "revoke", "x"},
		{"serve", "x"}, {"mcp", "x"}, {"desks", "x"}, {"search", "x"},
	} {
		args = append(args, "--db", db, "--no-such-flag")
		code, stdout, stderr := runInProcess("", args...)
		if code != exitUsage || !strings.Contains(stderr, "-no-such-flag") || stdout != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming -no-such-flag", args, code, stdout, stderr)
		}
	}

	// A flag after import's FILE is read as a flag: the error is the missing file's.
	code, _, stderr = runInProcess("", "import", filepath.Join(t.TempDir(), "missing.jsonl"), "--db", db, "--desk", "eng")
	if code != exitError || strings.Contains(stderr, "takes one FILE") || !strings.Contains(stderr, "missing.jsonl") {
		t.Errorf("import missing.jsonl --desk eng: exit %d, %q; want 1 naming the missing file", code, stderr)
	}
}
