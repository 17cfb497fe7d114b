package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
)

// The fault tests run servers as child processes, so that one can be killed (SIGKILL, as
// kill -9) like a real `transcript serve`: the child is this test binary, running
// TestHelperServe with its store and address in the environment. It prints the address it
// listens on, serves until its standard input ends (the parent asks it to stop, or died),
// and then shuts down.
const (
	serveStoreEnv  = "TRANSCRIPT_TEST_SERVE_STORE" // "sqlite:PATH" or "postgres:DSN"
	serveAddrEnv   = "TRANSCRIPT_TEST_SERVE_ADDR"  // host:port; 127.0.0.1:0 when empty or taken
	serveListening = "serve child: listening on "
)

// TestHelperServe is the child process of the fault tests (startServe). It does nothing in
// a normal test run.
func TestHelperServe(t *testing.T) {
	spec := os.Getenv(serveStoreEnv)
	if spec == "" {
		t.Skip("the child process of the fault tests: runs only when they start it")
	}
	ctx := context.Background()
	kind, dsn, _ := strings.Cut(spec, ":")
	var st server.Store
	switch kind {
	case "sqlite":
		s, err := sqlitestore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st = s
	case "postgres":
		s, err := pgstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		st = s
	default:
		t.Fatalf("%s=%q: want sqlite:PATH or postgres:DSN", serveStoreEnv, spec)
	}
	srv, err := server.New(st, server.Options{
		Rate: rate.Inf, MaxStreams: 1024, Heartbeat: 3 * time.Second, MaxAnswerBytes: loadAnswerBytes,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		t.Fatal(err)
	}
	addr := os.Getenv(serveAddrEnv)
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		ln, err = net.Listen("tcp", "127.0.0.1:0") // the port is taken: the parent is told the new one
	}
	if err != nil {
		t.Fatal(err)
	}
	hs := srv.HTTPServer(ln.Addr().String())
	go hs.Serve(ln)
	fmt.Println(serveListening + ln.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	hs.Shutdown(sctx)
}

// childStore is a database for the children and the test's own handle on it.
type childStore struct {
	name string
	open func(t *testing.T) (st server.Store, spec string)
}

var childStores = []childStore{
	{"sqlite", func(t *testing.T) (server.Store, string) {
		dir := t.TempDir()
		return openSQLite(t, dir), "sqlite:" + filepath.Join(dir, "desk.db")
	}},
	{"postgres", func(t *testing.T) (server.Store, string) {
		dsn := pgtest.Database(t, "server")
		st, err := pgstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st, "postgres:" + dsn
	}},
}

// serveChild is one child process serving.
type serveChild struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	url    string
	stderr *syncBuffer
	exited chan struct{}
	killed bool
}

// children are a test's child processes: every one is stopped when the test ends, and
// its standard error checked for data races.
type children struct {
	t    *testing.T
	spec string
	mu   sync.Mutex
	all  []*serveChild
}

func newChildren(t *testing.T, spec string) *children {
	c := &children{t: t, spec: spec}
	t.Cleanup(c.stopAll)
	return c
}

// lineWriter is a child's standard output: it hands on the address line once.
type lineWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	found chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.found == nil {
		return len(p), nil
	}
	for line := range strings.Lines(w.buf.String()) {
		if !strings.HasSuffix(line, "\n") {
			break // the rest of the line is still to come
		}
		if addr, ok := strings.CutPrefix(line, serveListening); ok {
			w.found <- strings.TrimSpace(addr)
			w.found = nil
			break
		}
	}
	return len(p), nil
}

// start starts a child listening on addr ("127.0.0.1:0" for any port), and returns once
// it listens. It may be called from any goroutine; it reports failures as errors.
func (c *children) start(addr string) (*serveChild, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperServe$", "-test.count=1", "-test.timeout=3m")
	cmd.Env = append(os.Environ(), serveStoreEnv+"="+c.spec, serveAddrEnv+"="+addr)
	found := make(chan string, 1)
	cmd.Stdout = &lineWriter{found: found}
	child := &serveChild{cmd: cmd, stderr: new(syncBuffer), exited: make(chan struct{})}
	cmd.Stderr = child.stderr
	if child.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { cmd.Wait(); close(child.exited) }()
	c.mu.Lock()
	c.all = append(c.all, child)
	c.mu.Unlock()
	select {
	case a := <-found:
		child.url = "http://" + a
		return child, nil
	case <-child.exited:
		return nil, fmt.Errorf("the serve child ended before it listened: %s", child.stderr)
	case <-time.After(30 * time.Second):
		child.cmd.Process.Kill()
		return nil, errors.New("the serve child did not listen within 30 s")
	}
}

// kill kills the child with SIGKILL (kill -9) and waits for it to be gone.
func (c *serveChild) kill() error {
	c.killed = true
	if err := c.cmd.Process.Kill(); err != nil {
		return err
	}
	select {
	case <-c.exited:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("a killed child is still there after 10 s")
	}
}

// stopAll asks every child still running to stop, kills those that do not within 10 s, and
// fails the test for a data race any of them reported.
func (c *children) stopAll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, child := range c.all {
		child.stdin.Close()
		select {
		case <-child.exited:
		case <-time.After(10 * time.Second):
			child.cmd.Process.Kill()
			<-child.exited
		}
		if log := child.stderr.String(); strings.Contains(log, "DATA RACE") {
			c.t.Errorf("a serve child reported a data race:\n%s", log)
		} else if !child.killed && child.cmd.ProcessState != nil && !child.cmd.ProcessState.Success() {
			c.t.Errorf("a serve child ended with %v:\n%s", child.cmd.ProcessState, log)
		}
	}
}

// logs returns what the children wrote on standard error, for a failing test.
func (c *children) logs() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var b strings.Builder
	for i, child := range c.all {
		fmt.Fprintf(&b, "child %d (%s):\n%s\n", i, child.url, child.stderr)
	}
	return b.String()
}
