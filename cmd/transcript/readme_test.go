package main

import (
	"bytes"
	"context"
	"io"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// readmeSkips are the README's shell commands TestREADMESnippets does not run, each with
// why: what they need is not in a fresh clone, or another test runs it. A command is
// skipped when it contains one of the strings; every string must match some command, so
// that the list cannot outlive the README.
var readmeSkips = []struct {
	why     string
	matches []string
}{
	{"make test is the run this test is part of", []string{"make test"}},
	{"serve runs until it is stopped (TestServe, TestServeDemo and the server's tests run it)", []string{"transcript serve"}},
	{"it runs an agent's turn in Python against a running serve (clients/python's tests run turn.py)", []string{"examples/python/turn.py"}},
	{"it reads the reader's own Slack or Discord export, and views what that export brings", []string{"~/Downloads/", "exports/Acme", "agent:B0BOT"}},
	{"it needs a PostgreSQL primary and its standbys (pgstore's and pg_test.go's tests use them)", []string{"postgres://"}},
	{"it installs the TypeScript client, whose tests make test-typescript runs, the README's example among them", []string{"clients/typescript"}},
	{"it installs the Python client, whose tests make test-python runs, the README's example among them", []string{"clients/python"}},
}

// readmeCommand is one shell command of the README's sh blocks. A "$ " line's command is
// checked: it prints the lines up to the next "$ " line (none: it prints nothing). A block
// without "$ " lines is all commands, each run and its output not checked.
type readmeCommand struct {
	block   int // the sh block's index, from 0
	line    string
	shown   []string // what the README shows it printing
	checked bool     // shown is what it prints
}

// readmeBlocks returns the text of the README's code blocks in language lang ("sh",
// "json"), in order.
func readmeBlocks(t *testing.T, lang string) []string {
	t.Helper()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+regexp.QuoteMeta(lang)+"\n(.*?)```").FindAllStringSubmatch(string(readme), -1) {
		out = append(out, m[1])
	}
	return out
}

// readmeShellCommands returns the commands of the README's ```sh blocks, in order. A line
// ending in a backslash goes on in the next one; a line that is only a comment is none.
func readmeShellCommands(t *testing.T) []readmeCommand {
	t.Helper()
	var out []readmeCommand
	for i, block := range readmeBlocks(t, "sh") {
		var lines []string
		for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
			if n := len(lines); n > 0 && strings.HasSuffix(lines[n-1], `\`) {
				lines[n-1] = strings.TrimSuffix(lines[n-1], `\`) + " " + strings.TrimSpace(l)
				continue
			}
			lines = append(lines, l)
		}
		prompted := slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "$ ") })
		for _, l := range lines {
			switch {
			case !prompted && strings.TrimSpace(l) != "" && !strings.HasPrefix(strings.TrimSpace(l), "#"):
				out = append(out, readmeCommand{block: i, line: l})
			case prompted && strings.HasPrefix(l, "$ "):
				out = append(out, readmeCommand{block: i, line: strings.TrimPrefix(l, "$ "), checked: true})
			case prompted && len(out) > 0 && out[len(out)-1].block == i:
				out[len(out)-1].shown = append(out[len(out)-1].shown, l)
			case prompted:
				t.Fatalf("the README's sh block %d shows output before its first command: %q", i, l)
			}
		}
	}
	return out
}

// readmeSkip returns why the README's command line is not run, or "" when it is; it
// counts the skip strings that matched in used.
func readmeSkip(line string, used map[string]bool) string {
	for _, s := range readmeSkips {
		for _, m := range s.matches {
			if strings.Contains(line, m) {
				used[m] = true
				return s.why
			}
		}
	}
	return ""
}

// matchesShown reports whether got, a command's output, is what the README shows: the same
// lines, where a line "..." stands for any lines and "..." within a line for any text.
func matchesShown(shown []string, got string) bool {
	var re strings.Builder
	re.WriteString(`\A`)
	for _, l := range shown {
		if l == "..." {
			re.WriteString(`(?:.*\n)*`)
			continue
		}
		re.WriteString(strings.ReplaceAll(regexp.QuoteMeta(l), `\.\.\.`, `.*`) + `\n`)
	}
	re.WriteString(`\z`)
	return regexp.MustCompile(re.String()).MatchString(got)
}

// TestREADMESnippets runs the README's shell snippets as a reader on a fresh clone would:
// in order, from a directory that stands for the checkout (it holds the repository's
// examples/), with the built command on the PATH as transcript (the first screen's go run
// ./cmd/transcript is that command), each line through sh, as readmeWalk runs it: the
// walk-through's cd, into a new temporary directory, holds for the commands after it, a
// NAME=$(...) line sets NAME for them, transcript serve serves the directory's database to
// the curl commands after it, and curl -N streams while the next command runs. Every
// command exits 0 and prints what the README shows, but for those readmeSkips lists. The
// first screen gives exactly the two commands that work on a fresh machine, and further
// down the command is transcript throughout; the walk-through writes nothing in the
// checkout.
func TestREADMESnippets(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("the README's snippets need sh:", err)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the README's HTTP snippets need curl:", err)
	}
	commands := readmeShellCommands(t)
	var first []string
	for _, c := range commands {
		if c.block == 0 {
			first = append(first, strings.TrimSpace(strings.Split(c.line, "#")[0]))
		} else if strings.Contains(c.line, "go run ./cmd/transcript") {
			t.Errorf("the README's command %q uses go run: below the first screen it is transcript", c.line)
		}
	}
	if want := []string{"go run ./cmd/transcript demo", "make test"}; !slices.Equal(first, want) {
		t.Errorf("the README's first screen gives %q, want %q", first, want)
	}

	bin := t.TempDir()
	if err := os.Symlink(binary(t), filepath.Join(bin, "transcript")); err != nil {
		t.Fatal(err)
	}
	checkout := t.TempDir()
	if err := os.CopyFS(filepath.Join(checkout, "examples"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	w := &readmeWalk{t: t, sh: sh, dir: checkout, env: append(os.Environ(),
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir(), "TMPDIR="+t.TempDir())}
	used := make(map[string]bool)
	ran := 0
	var inCheckout []string // what the checkout holds when the walk-through leaves it
	for _, c := range commands {
		if strings.HasPrefix(c.line, "cd ") && inCheckout == nil {
			inCheckout = listFiles(t, checkout)
		}
		if w.serves(c) {
			ran++
			continue
		}
		if why := readmeSkip(c.line, used); why != "" {
			t.Logf("skipped: %s (%s)", c.line, why)
			continue
		}
		w.run(c)
		ran++
	}
	w.endStream()
	for _, s := range readmeSkips {
		for _, m := range s.matches {
			if !used[m] {
				t.Errorf("readmeSkips names %q, which no command of the README contains", m)
			}
		}
	}
	if ran == 0 {
		t.Error("no command of the README ran")
	}
	if w.served == nil || w.streamed == 0 {
		t.Errorf("the README's walk-through served %v and streamed %d times: want transcript serve and a curl -N of its events", w.served != nil, w.streamed)
	}
	switch {
	case inCheckout == nil:
		t.Error("the README's walk-through runs in the checkout: want a cd into a temporary directory first")
	case w.dir == checkout:
		t.Error("the README's walk-through cd stays in the checkout")
	case !slices.Equal(listFiles(t, checkout), inCheckout):
		t.Errorf("the README's walk-through wrote in the checkout: it holds %q, and held %q when the walk-through left it", listFiles(t, checkout), inCheckout)
	}
}

// readmeWalk runs the README's commands one after another, as a reader in a terminal would.
type readmeWalk struct {
	t      *testing.T
	sh     string
	dir    string   // where the commands run: the checkout, then the walk-through's cd
	env    []string // the environment, with what NAME=$(...) lines set
	served *serving // transcript serve, once the README started it
	stream *readmeStream
	// streamed counts the curl -N commands run.
	streamed int
}

// readmeStream is a curl -N command running while the commands after it run.
type readmeStream struct {
	c   readmeCommand
	cmd *exec.Cmd
	out *syncBuffer
}

// streaming is a curl command with -N, which streams until it is stopped.
var streaming = regexp.MustCompile(`^curl (?:.*\s)?-[a-zA-Z]*N\b`)

// readmeCommandTimeout bounds one command of the README: one that waits for ever fails.
const readmeCommandTimeout = 2 * time.Minute

// assignment is a NAME=$(command) line, with an optional comment.
var assignment = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=\$\((.*)\)\s*(?:#.*)?$`)

// serves starts transcript serve for c, when c is the README's plain transcript serve: on
// the database in the walk-through's directory, at an address of its own, which the
// commands after it use in place of the README's.
func (w *readmeWalk) serves(c readmeCommand) bool {
	if strings.TrimSpace(strings.Split(c.line, "#")[0]) != "transcript serve" {
		return false
	}
	if w.served != nil {
		w.t.Fatalf("the README starts transcript serve twice")
	}
	w.served = startServe(w.t, filepath.Join(w.dir, "transcript.db"))
	return true
}

// run runs c: a cd changes where the commands after it run; NAME=$(...) sets NAME for them,
// its command's standard error being what it prints; curl -N is left running, its events
// checked once the next command ran; any other command's standard output and error are
// what it prints.
func (w *readmeWalk) run(c readmeCommand) {
	t := w.t
	t.Helper()
	line := strings.Replace(c.line, "go run ./cmd/transcript ", "transcript ", 1)
	if w.served != nil {
		line = strings.ReplaceAll(line, "http://127.0.0.1:8474", w.served.url)
	}
	var stdout, stderr bytes.Buffer
	cmd := w.command(line)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	shown := &stdout
	switch m := assignment.FindStringSubmatch(line); {
	case strings.HasPrefix(line, "cd "):
		cmd = w.command("set -e\n" + line + "\npwd")
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
	case m != nil:
		cmd = w.command(m[2])
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		shown = &stderr
	case streaming.MatchString(line):
		w.startStream(c, line)
		return
	default:
		cmd.Stderr = &stdout
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's command %q: %v\n%s%s", c.line, err, stdout.String(), stderr.String())
	}
	switch m := assignment.FindStringSubmatch(line); {
	case strings.HasPrefix(line, "cd "):
		lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
		w.dir = lines[len(lines)-1]
	case m != nil:
		w.env = append(w.env, m[1]+"="+strings.TrimSpace(stdout.String()))
	}
	if c.checked && !matchesShown(c.shown, shown.String()) {
		t.Errorf("the README's command %q printed\n%s\nbut the README shows\n%s", c.line, shown.String(), strings.Join(c.shown, "\n"))
	}
	w.endStream()
}

// command is script through sh, where the commands run, killed after readmeCommandTimeout.
func (w *readmeWalk) command(script string) *exec.Cmd {
	ctx, cancel := context.WithTimeout(w.t.Context(), readmeCommandTimeout)
	w.t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, w.sh, "-c", script)
	cmd.WaitDelay = time.Second
	cmd.Dir, cmd.Env = w.dir, append(slices.Clip(w.env), "PWD="+w.dir)
	return cmd
}

// startStream starts c, a curl -N of serve's events, and waits until serve counts its
// stream open, so that what the next command posts is news to it.
func (w *readmeWalk) startStream(c readmeCommand, line string) {
	t := w.t
	t.Helper()
	if w.served == nil {
		t.Fatalf("the README's command %q streams before transcript serve runs", c.line)
	}
	before := w.openStreams()
	st := &readmeStream{c: c, cmd: w.command("exec " + line), out: &syncBuffer{}}
	st.cmd.Stdout, st.cmd.Stderr = st.out, st.out
	if err := st.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.stream = st
	w.streamed++
	t.Cleanup(func() { st.cmd.Process.Kill(); st.cmd.Wait() })
	for deadline := time.Now().Add(20 * time.Second); w.openStreams() <= before; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the README's command %q opened no stream within 20 s:\n%s", c.line, st.out)
		}
	}
}

// endStream waits until the running curl -N, if any, has printed what the README shows (at
// most 20 s), then stops it.
func (w *readmeWalk) endStream() {
	st := w.stream
	if st == nil {
		return
	}
	w.stream = nil
	deadline := time.Now().Add(20 * time.Second)
	for !matchesShown(st.c.shown, st.out.String()) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	st.cmd.Process.Kill()
	st.cmd.Wait()
	if !matchesShown(st.c.shown, st.out.String()) {
		w.t.Errorf("the README's command %q printed\n%s\nbut the README shows\n%s", st.c.line, st.out.String(), strings.Join(st.c.shown, "\n"))
	}
}

// openStreams returns the streams serve counts open (its metric transcript_streams_open).
func (w *readmeWalk) openStreams() int {
	t := w.t
	t.Helper()
	res, err := http.Get(w.served.url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^transcript_streams_open (\d+)$`).FindSubmatch(body)
	if m == nil {
		t.Fatalf("serve's metrics hold no transcript_streams_open:\n%s", body)
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// listFiles returns the paths of the files and directories under dir, sorted.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, _ fs.DirEntry, err error) error {
		out = append(out, strings.TrimPrefix(path, dir))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
