package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewAndDeltaRefuseAThreadTheViewerMayNotRead: view --thread and delta --thread --init
// of a thread whose root --as may not read (an aside not addressed to it) exit 1 as for a
// thread that does not exist, in the same words and showing nothing, as the service answers
// that viewer 404; a reader of the aside views the thread.
func TestViewAndDeltaRefuseAThreadTheViewerMayNotRead(t *testing.T) {
	db := filepath.Join(t.TempDir(), "desk.db")
	reviewer := addTokenInProcess(t, db, "eng", "agent:reviewer")
	for _, args := range [][]string{
		{"append", "--db", db, "--desk", "eng", "--as", "person:ana", "--create", "hello"},
		{"append", "--db", db, "--desk", "eng", "--to", "agent:triage", "the 22:00 slot is not confirmed"},
	} {
		if code, _, stderr := runInProcess("", args...); code != exitOK {
			t.Fatalf("%v: %s", args, stderr)
		}
	}
	srv := startServe(t, db)
	srv.api(reviewer).want(http.StatusNotFound, "GET", "/v1/desks/eng/view?thread=2", nil, nil)
	for _, thread := range []string{"2", "9"} {
		want := "no thread #" + thread + ` that agent:reviewer may read: desk "eng" holds rows #1 to #2`
		for _, args := range [][]string{
			{"view", "--db", db, "--desk", "eng", "--as", "agent:reviewer", "--thread", thread},
			{"delta", "--db", db, "--desk", "eng", "--as", "agent:reviewer", "--thread", thread, "--init", "--state", filepath.Join(t.TempDir(), "s.json")},
		} {
			code, stdout, stderr := runInProcess("", args...)
			if code != exitError || stdout != "" || !strings.Contains(stderr, want) {
				t.Errorf("%s: exit %d, stdout %q, stderr %q; want 1 and %q", strings.Join(args, " "), code, stdout, stderr, want)
			}
		}
	}
	code, out, stderr := runInProcess("", "view", "--db", db, "--desk", "eng", "--as", "agent:triage", "--thread", "2")
	if code != exitOK || !strings.Contains(out, "22:00 slot") {
		t.Errorf("view --thread 2 as the aside's reader: exit %d, want 0 and the aside:\n%s%s", code, out, stderr)
	}
}
