package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
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
	{"it talks to a running serve (the server's tests make these requests; clients/python's tests run turn.py, TestREADMESearchOverHTTP the search)", []string{"curl ", "examples/python/turn.py"}},
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
// in order, in one directory that holds the repository's examples/, with the built command
// on the PATH as transcript (the first screen's go run ./cmd/transcript is that command),
// each line through sh. Every command exits 0 and prints what the README shows, but for
// those readmeSkips lists. The first screen gives exactly the two commands that work on a
// fresh machine, and further down the command is transcript throughout.
func TestREADMESnippets(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("the README's snippets need sh:", err)
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
	clone := t.TempDir()
	if err := os.CopyFS(filepath.Join(clone, "examples"), os.DirFS("../../examples")); err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "HOME="+t.TempDir())
	used := make(map[string]bool)
	ran := 0
	for _, c := range commands {
		if why := readmeSkip(c.line, used); why != "" {
			t.Logf("skipped: %s (%s)", c.line, why)
			continue
		}
		line := strings.Replace(c.line, "go run ./cmd/transcript ", "transcript ", 1)
		cmd := exec.Command(sh, "-c", line)
		cmd.Dir, cmd.Env = clone, env
		var output bytes.Buffer
		cmd.Stdout, cmd.Stderr = &output, &output
		if err := cmd.Run(); err != nil {
			t.Fatalf("the README's command %q: %v\n%s", c.line, err, output.String())
		}
		if c.checked && !matchesShown(c.shown, output.String()) {
			t.Errorf("the README's command %q printed\n%s\nbut the README shows\n%s", c.line, output.String(), strings.Join(c.shown, "\n"))
		}
		ran++
	}
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
}
