package main

import (
	"strings"
	"testing"
)

// TestMistypedURLHidesItsPassword: a PostgreSQL URL malformed or mistyped without its "//"
// is refused by every command, reading or writing, without its password, and with the
// mistyped one called a mistyped URL, not a file that is missing.
func TestMistypedURLHidesItsPassword(t *testing.T) {
	t.Parallel()
	for _, db := range []string{
		"postgres://app:hunter2pw@127.0.0.1:bad/chat",
		"postgres:/app:hunter2pw@h/chat",
		"postgresql:app:hunter2pw@h/chat",
	} {
		for _, args := range [][]string{
			{"view", "--db", db},
			{"import", "--db", db, "-"},
			{"append", "--db", db, "--create", "hi"},
			{"desks", "--db", db},
		} {
			code, _, stderr := runInProcess("", args...)
			switch {
			case code == exitOK:
				t.Errorf("%s: exit 0", strings.Join(args, " "))
			case strings.Contains(stderr, "hunter2pw"):
				t.Errorf("%s: the password is on standard error:\n%s", strings.Join(args, " "), stderr)
			case !strings.Contains(db, "://") && !strings.Contains(stderr, "mistyped PostgreSQL URL"):
				t.Errorf("%s: want it called a mistyped URL:\n%s", strings.Join(args, " "), stderr)
			}
		}
	}
}
