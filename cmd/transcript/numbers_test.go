package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBadNumbersSayWhatIsWanted: a flag's number, duration or address that cannot be read
// is a usage error that names the flag and says what it wants, not the flag package's
// "parse error" alone, and opens no database.
func TestBadNumbersSayWhatIsWanted(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"view", "--thread", "abc"}, `view: invalid value "abc" for flag -thread: want a whole number from 0; -thread: show the thread rooted at this seq instead of the channel`},
		{[]string{"search", "--limit", "ten", "deploy"}, `search: invalid value "ten" for flag -limit: want a whole number; -limit: how many hits to show`},
		{[]string{"serve", "--rate", "fast"}, `serve: invalid value "fast" for flag -rate: want a number, such as 10, 0.5 or inf; -rate: the requests a second`},
		{[]string{"serve", "--drain-timeout", "soon"}, `serve: invalid value "soon" for flag -drain-timeout: want a duration, such as 30s, 5m or 1h30m`},
		{[]string{"serve", "--addr", "localhost:99999"}, "serve --addr localhost:99999: listen tcp: address 99999: invalid port"},
	} {
		args := append(tc.args, "--db", db)
		code, _, stderr := runInProcess("", args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "parse error") {
			t.Errorf("transcript %s: exit %d\n%s\nwant exit 2 saying %s", strings.Join(args, " "), code, stderr, tc.want)
		}
	}
	if fileExists(db) {
		t.Errorf("a refused command line made %s", db)
	}
}
