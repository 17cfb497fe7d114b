package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// The end-to-end tests build the command once (the first test that needs it does) and run
// the binary with os/exec, as a person or a script would: they check its standard output,
// standard error and exit code. The binary is built without -race whatever the tests run
// with: they test the program's behaviour; the in-process tests cover the code under -race.

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	stopChromium()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binEnv names a built command to test instead of building one (scripts/bench-import.sh
// sets it, so that its many runs of the test binary do not each build the command).
const binEnv = "TRANSCRIPT_E2E_BIN"

// binary returns the path of the built command, building it on first use.
func binary(tb testing.TB) string {
	tb.Helper()
	binOnce.Do(func() {
		if p := os.Getenv(binEnv); p != "" {
			binPath, binErr = filepath.Abs(p)
			return
		}
		binDir, binErr = os.MkdirTemp("", "transcript-e2e-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "transcript")
		cmd := exec.Command(goTool(), "build", "-o", binPath, ".")
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		tb.Fatal(binErr)
	}
	return binPath
}

// goTool returns the go command of the toolchain running the tests.
func goTool() string {
	if root := os.Getenv("GOROOT"); root != "" {
		if p := filepath.Join(root, "bin", "go"); fileExists(p) {
			return p
		}
	}
	return "go"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// result is what one run of the command did.
type result struct {
	args           []string
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("transcript %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(r.args, " "), r.code, clip(r.stdout), clip(r.stderr))
}

// clip shortens s for a failure message.
func clip(s string) string {
	const limit = 4000
	if len(s) <= limit {
		return s
	}
	return s[:limit] + fmt.Sprintf("… (%d more bytes)", len(s)-limit)
}

// cli runs the command in a directory of its own against one database.
type cli struct {
	t   *testing.T
	dir string // working directory
	db  string // --db value; empty: the command's default
}

// newCLI returns a cli working in a new temporary directory on db ("" for the default
// ./transcript.db in that directory).
func newCLI(t *testing.T, db string) *cli {
	t.Helper()
	binary(t)
	return &cli{t: t, dir: t.TempDir(), db: db}
}

// runIn runs the command with args (and --db, when the cli has one, right after the command's
// name) and standard input stdin, and fails the test if a pipe got an ANSI escape.
func (c *cli) runIn(stdin string, args ...string) result {
	c.t.Helper()
	full := args
	if c.db != "" && len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "help" {
		full = append([]string{args[0], "--db", c.db}, args[1:]...)
	}
	cmd := exec.Command(binary(c.t), full...)
	cmd.Dir = c.dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "TERM=xterm-256color") // colour only if it were a terminal
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: full, stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		c.t.Fatalf("transcript %s: %v", strings.Join(full, " "), err)
	}
	for _, out := range []string{r.stdout, r.stderr} {
		if strings.Contains(out, "\x1b") {
			c.t.Errorf("output to a pipe holds an ANSI escape:\n%s", r)
			break
		}
	}
	return r
}

func (c *cli) run(args ...string) result {
	c.t.Helper()
	return c.runIn("", args...)
}

// ok runs the command, fails the test unless it exits 0, and returns its standard output.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	r := c.run(args...)
	if r.code != 0 {
		c.t.Fatalf("want exit 0, got:\n%s", r)
	}
	return r.stdout
}

// want runs the command and fails the test unless it exits with code.
func (c *cli) want(code int, args ...string) result {
	c.t.Helper()
	r := c.run(args...)
	if r.code != code {
		c.t.Fatalf("want exit %d, got:\n%s", code, r)
	}
	return r
}

// path returns name in the cli's directory.
func (c *cli) path(name string) string { return filepath.Join(c.dir, name) }

// writeFile writes data to name in the cli's directory and returns its path.
func (c *cli) writeFile(name string, data []byte) string {
	c.t.Helper()
	p := c.path(name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// backend names a kind of database the flows run against.
type backend struct {
	name string
	// db returns a new, empty database for t: a SQLite path or a postgres:// URL.
	db func(t *testing.T) string
}

// backends returns SQLite, always, and PostgreSQL (see pgDatabase: it skips when
// TRANSCRIPT_PG_DSN is not set, and fails under CI=true).
func backends() []backend {
	return []backend{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "desk.db") }},
		{"postgres", pgDatabase},
	}
}

// forEachBackend runs f as a parallel subtest per backend, each on a fresh database.
func forEachBackend(t *testing.T, f func(t *testing.T, newDB func(t *testing.T) string)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			t.Parallel()
			f(t, b.db)
		})
	}
}
