package main

import (
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTyposFail reads desks and threads that do not exist: each is an error naming what
// does exist, never an empty view; token add for a new desk says it is new; desks lists each
// desk with its rows.
func TestTyposFail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "desk.db")
	mustRun := func(stdin string, args ...string) (stdout, stderr string) {
		t.Helper()
		code, stdout, stderr := runInProcess(stdin, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		return stdout, stderr
	}
	mustRun("", "append", "--db", db, "--desk", "eng", "--create", "root")
	mustRun("", "append", "--db", db, "--desk", "eng", "--parent", "1", "reply")
	mustRun("", "append", "--db", db, "--desk", "ops", "--create", "page")

	for _, args := range [][]string{
		{"view", "--desk", "engg"},
		{"view"}, // the default desk, main, which this database does not hold
		{"delta", "--desk", "engg", "--state", filepath.Join(dir, "s.json")},
		{"delta", "--desk", "engg", "--init", "--state", filepath.Join(dir, "s.json")},
		{"export", "--desk", "engg"},
		{"search", "--desk", "engg", "root"},
	} {
		args = append(args, "--db", db)
		code, stdout, stderr := runInProcess("", args...)
		if code != exitError || stdout != "" || !strings.Contains(stderr, `; the desks are: eng, ops`) || !strings.Contains(stderr, `no desk "`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 naming the desks", args, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{
		{"view", "--desk", "eng", "--thread", "99"},
		{"delta", "--desk", "eng", "--thread", "99", "--state", filepath.Join(dir, "t.json")},
	} {
		args = append(args, "--db", db)
		code, stdout, stderr := runInProcess("", args...)
		if code != exitError || stdout != "" || !strings.Contains(stderr, `no thread #99: desk "eng" holds rows #1 to #2`) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 1 saying there is no thread #99", args, code, stdout, stderr)
		}
	}
	if out, _ := mustRun("", "view", "--db", db, "--desk", "eng", "--thread", "1"); !strings.Contains(out, "reply") {
		t.Errorf("view --thread 1 does not show the reply:\n%s", out)
	}

	if code, stdout, stderr := runInProcess("", "token", "add", "--db", db, "--desk", "engg", "--as", "agent:bot"); code != exitError || stdout != "" ||
		!strings.Contains(stderr, `no desk "engg"; the desks are: eng, ops (add --create to make desk "engg")`) {
		t.Errorf("token add for a desk not there: exit %d, stdout %q, stderr %q; want 1 naming the desks and --create", code, stdout, stderr)
	}
	_, stderr := mustRun("", "token", "add", "--db", db, "--desk", "engg", "--create", "--as", "agent:bot")
	if !strings.Contains(stderr, "desk engg is new: it holds no message yet") {
		t.Errorf("token add for a new desk does not say it is new:\n%s", stderr)
	}
	if _, stderr := mustRun("", "token", "add", "--db", db, "--desk", "eng", "--as", "agent:bot"); strings.Contains(stderr, "is new") {
		t.Errorf("token add for a desk with rows says it is new:\n%s", stderr)
	}

	out, _ := mustRun("", "desks", "--db", db)
	want := "DESK  ROWS  NEWEST\neng   2     #2\nops   1     #1\n"
	if out != want {
		t.Errorf("desks printed\n%s\nwant\n%s", out, want)
	}
	empty := filepath.Join(dir, "empty.db")
	mustRun("", "token", "add", "--db", empty, "--desk", "x", "--create", "--as", "agent:bot") // a database with no desk
	if out, _ := mustRun("", "desks", "--db", empty); !strings.Contains(out, "holds no desk yet") {
		t.Errorf("desks of a database with no desk printed %q", out)
	}
}

// TestSayWhenNothing: a delta with nothing new says so in text (and is an empty list in
// json); an append of a blank message is refused unless --allow-blank.
func TestSayWhenNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db, state := filepath.Join(dir, "desk.db"), filepath.Join(dir, "state.json")
	mustRun := func(stdin string, args ...string) string {
		t.Helper()
		code, stdout, stderr := runInProcess(stdin, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", args, code, stderr)
		}
		return stdout
	}
	mustRun("", "append", "--db", db, "--create", "root")
	mustRun("", "delta", "--db", db, "--state", state, "--as", "agent:y", "--commit")
	if out := mustRun("", "delta", "--db", db, "--state", state, "--as", "agent:y"); out != "nothing new for agent:y since #1\n" {
		t.Errorf("delta with nothing new printed %q", out)
	}
	if out := mustRun("", "delta", "--db", db, "--state", state, "--as", "agent:y", "--format", "json"); !strings.Contains(out, `"messages": []`) {
		t.Errorf("json delta with nothing new printed %q", out)
	}

	for _, stdin := range []string{"", "\n", "  \t\n"} {
		code, stdout, stderr := runInProcess(stdin, "append", "--db", db)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, "the message is blank") || !strings.Contains(stderr, "--allow-blank") {
			t.Errorf("append of %q: exit %d, %q, %q; want 2 saying it is blank", stdin, code, stdout, stderr)
		}
	}
	if out := mustRun("", "append", "--db", db, "--allow-blank"); out != "2\n" {
		t.Errorf("append --allow-blank printed %q, want 2", out)
	}
	if n := strings.Count(mustRun("", "export", "--db", db), "\n"); n != 2 {
		t.Errorf("the desk holds %d rows, want 2 (the refused blanks stored nothing)", n)
	}
}

// TestHelpAndBehaviourAgree checks the flags whose help and behaviour disagreed.
func TestHelpAndBehaviourAgree(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	if code, _, stderr := runInProcess("", "append", "--db", db, "--create", "--as", "operator:boss", "hi"); code != exitOK {
		t.Fatalf("append --as operator:boss: exit %d\n%s", code, stderr)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"view", "--db", db, "--window", "-3"}, "--window -3: want at least 1"},
		{[]string{"view", "--db", db, "--window", "0"}, "--window 0: want at least 1"},
		{[]string{"serve", "--db", db, "--addr", "8475"}, "serve --addr 8475: it is a port alone: want HOST:PORT, such as 127.0.0.1:8475"},
	} {
		code, stdout, stderr := runInProcess("", tc.args...)
		if code != exitUsage || stdout != "" || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q, %q; want 2 saying %q", tc.args, code, stdout, stderr, tc.want)
		}
	}
	// One placeholder for a participant and one for a desk, in every command's help.
	for _, args := range [][]string{{"append"}, {"view"}, {"delta"}, {"search"}, {"export"}, {"mcp"}, {"token", "add"}, {"token", "list"}} {
		_, help, _ := runInProcess("", append([]string{"help"}, args...)...)
		for _, old := range []string{"-as author", "-as viewer", "-desk name", "NAME"} {
			if strings.Contains(help, old) {
				t.Errorf("help %v holds %q:\n%s", args, old, help)
			}
		}
		if strings.Contains(help, "-as ") && !strings.Contains(help, "-as participant") {
			t.Errorf("help %v: --as's placeholder is not participant:\n%s", args, help)
		}
	}
}

// TestServeDemoCannotListen: serve --demo on an address in use fails, naming --addr, before
// it opens the database: no secret printed, no database, so no operator token for the demo
// left live.
func TestServeDemoCannotListen(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	db := filepath.Join(t.TempDir(), "desk.db")
	code, stdout, stderr := runInProcess("", "serve", "--demo", "--db", db, "--addr", ln.Addr().String())
	if code != exitError || strings.Contains(stdout, "trs_") || !strings.Contains(stderr, "serve --addr "+ln.Addr().String()+": ") {
		t.Fatalf("serve --demo on an address in use: exit %d, stdout %q; want 1 naming --addr and no secret printed\n%s", code, stdout, stderr)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("serve --demo on an address in use made %s (%v)", db, err)
	}
}

// TestServeAddrQuotesNoSecret: a token's secret given as --addr, alone or as a port, is
// refused without being printed back.
func TestServeAddrQuotesNoSecret(t *testing.T) {
	t.Parallel()
	const secret = "trs_KkRqAsJDbiQjp1pfJGTa9GNTFAY38DWvL1MLKkmkk"
	for _, addr := range []string{"127.0.0.1:" + secret, secret} {
		code, stdout, stderr := runInProcess("", "serve", "--db", filepath.Join(t.TempDir(), "t.db"), "--addr", addr)
		if code == exitOK || strings.Contains(stdout+stderr, secret) || !strings.Contains(stderr, "--addr") {
			t.Errorf("serve --addr %s: exit %d; want a refusal naming --addr, not the secret\n%s%s", strings.Replace(addr, secret, "SECRET", 1), code, stdout, stderr)
		}
	}
}

// TestDesksNamesNoPassword: desks on a PostgreSQL database with no desk says so without
// printing --db, whose URL may hold a password.
func TestDesksNamesNoPassword(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "s3cret-pw") // the test server trusts its user
	db := u.String()
	if code, _, stderr := runInProcess("", "token", "add", "--db", db, "--desk", "x", "--create", "--as", "agent:bot"); code != exitOK {
		t.Fatalf("token add: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runInProcess("", "desks", "--db", db)
	if code != exitOK || !strings.Contains(stdout, "holds no desk yet") || strings.Contains(stdout+stderr, "s3cret-pw") {
		t.Errorf("desks: exit %d, %q, %q; want it to say there is no desk, without the password", code, stdout, stderr)
	}
}
