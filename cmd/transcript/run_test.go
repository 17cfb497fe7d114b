package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// runInProcess runs the command in this process, so that the race detector sees its code,
// and returns its exit code and outputs.
func runInProcess(stdin string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, newEnv(strings.NewReader(stdin), &out, &errOut))
	return code, out.String(), errOut.String()
}

// TestRunInProcess runs the commands through run, some of them at once on one database.
func TestRunInProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "desk.db")
	state := filepath.Join(dir, "state.json")
	mustRun := func(stdin string, args ...string) string {
		t.Helper()
		code, stdout, stderr := runInProcess(stdin, args...)
		if code != exitOK {
			t.Fatalf("run %v: exit %d\n%s", args, code, stderr)
		}
		return stdout
	}
	mustRun(flowDesk, "import", "--db", db, "-")
	if got := mustRun("from standard input\n", "append", "--db", db, "--as", "agent:x:X", "--parent", "2"); got != "9\n" {
		t.Errorf("append from standard input printed %q, want 9", got)
	}
	mustRun("", "delta", "--db", db, "--state", state, "--as", "agent:y", "--commit")

	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			if code, _, stderr := runInProcess("", "view", "--db", db, "--as", "agent:y", "--format", "openai"); code != exitOK {
				t.Errorf("concurrent view: exit %d\n%s", code, stderr)
			}
			if code, _, stderr := runInProcess("", "append", "--db", db, "--as", "agent:x", fmt.Sprint("concurrent ", i)); code != exitOK {
				t.Errorf("concurrent append: exit %d\n%s", code, stderr)
			}
		})
	}
	wg.Wait()

	out := mustRun("", "delta", "--db", db, "--state", state, "--as", "agent:y", "--commit")
	if n := strings.Count(out, "concurrent "); n != 4 {
		t.Errorf("delta after four concurrent appends shows %d of them:\n%s", n, out)
	}
	if out := mustRun("", "delta", "--db", db, "--state", state, "--as", "agent:y"); out != "nothing new for agent:y since #13\n" {
		t.Errorf("delta after commit: %q, want nothing new", out)
	}
	if got := strings.Count(mustRun("", "export", "--db", db), "\n"); got != 13 {
		t.Errorf("export: %d rows, want 13", got)
	}
	if code, _, _ := runInProcess("", "view", "--db", db, "--format", "yaml"); code != exitUsage {
		t.Errorf("bad --format: exit %d, want 2", code)
	}
	if code, _, stderr := runInProcess("", "delta", "--db", db, "--state", state, "--thread", "2"); code != exitReinit || !strings.Contains(stderr, "conversation_changed") {
		t.Errorf("thread delta on a channel state: exit %d, %q; want 3 and conversation_changed", code, stderr)
	}
}
