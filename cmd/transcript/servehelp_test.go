package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// The serve tests run the command in this process, as TestRunInProcess does, so that the
// race detector sees the server; cancelling the context run gets is what SIGTERM does in
// main (TestServeSIGTERM sends the real signal to the built binary).

// syncBuffer is a bytes.Buffer that a running command and the test can share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// listeningLine is serve's line on standard error once it listens.
var listeningLine = regexp.MustCompile(`(?m)^listening on (https?://\S+)$`)

// serving is one serve command running in this process.
type serving struct {
	t      *testing.T
	url    string // http://127.0.0.1:PORT, from the listening line
	stdout *syncBuffer
	stderr *syncBuffer
	cancel context.CancelFunc
	done   chan int // the exit code, once
	once   sync.Once
	code   int
}

// startServe runs "serve --db db --addr 127.0.0.1:0 flags..." in this process and waits until
// it listens. The test's cleanup stops it.
func startServe(t *testing.T, db string, flags ...string) *serving {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &serving{t: t, stdout: &syncBuffer{}, stderr: &syncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	args := append([]string{"serve", "--db", db, "--addr", "127.0.0.1:0"}, flags...)
	go func() { s.done <- run(ctx, args, newEnv(strings.NewReader(""), s.stdout, s.stderr)) }()
	t.Cleanup(func() { s.stop() })
	deadline := time.After(time.Minute)
	for {
		// serve --demo prints its sign-in on standard output just after it says it listens.
		if m := listeningLine.FindStringSubmatch(s.stderr.String()); m != nil && (!slices.Contains(flags, "--demo") || demoSignIn.MatchString(s.stdout.String())) {
			s.url = m[1]
			return s
		}
		select {
		case code := <-s.done:
			s.once.Do(func() { s.code = code })
			t.Fatalf("serve %v exited %d before listening:\n%s", args, code, s.stderr)
		case <-deadline:
			t.Fatalf("serve %v is not listening after a minute:\n%s", args, s.stderr)
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// stop does what SIGTERM does and returns serve's exit code.
func (s *serving) stop() int {
	s.t.Helper()
	s.cancel()
	s.once.Do(func() {
		select {
		case s.code = <-s.done:
		case <-time.After(time.Minute):
			s.t.Fatalf("serve did not stop within a minute of its signal:\n%s", s.stderr)
		}
	})
	return s.code
}

// api makes requests to a serving command with one token's secret ("" for none).
type api struct {
	t      *testing.T
	base   string
	secret string
	client *http.Client
}

func (s *serving) api(secret string) api {
	return api{t: s.t, base: s.url, secret: secret, client: http.DefaultClient}
}

// do sends one request with body as JSON (nil: none) and returns the status and body.
func (a api) do(method, path string, body any) (int, []byte) {
	a.t.Helper()
	resp := a.send(context.Background(), method, path, body)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	return resp.StatusCode, data
}

// send sends one request and returns the response, whose body the caller closes.
func (a api) send(ctx context.Context, method, path string, body any) *http.Response {
	a.t.Helper()
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, r)
	if err != nil {
		a.t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.secret != "" {
		req.Header.Set("Authorization", "Bearer "+a.secret)
	}
	resp, err := a.client.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp
}

// want sends one request, fails the test unless the answer has status, and decodes the
// answer's JSON into out (when not nil).
func (a api) want(status int, method, path string, body, out any) {
	a.t.Helper()
	got, data := a.do(method, path, body)
	if got != status {
		a.t.Fatalf("%s %s: status %d, want %d:\n%s", method, path, got, status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			a.t.Fatalf("%s %s: %v:\n%s", method, path, err, data)
		}
	}
}

// sseEvent is one Server-Sent Event.
type sseEvent struct {
	name, id, data string
}

// sseReader reads the events of a stream, skipping comment lines (heartbeats).
type sseReader struct{ sc *bufio.Scanner }

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	return &sseReader{sc: sc}
}

// next returns the next event, or false at the end of the stream.
func (r *sseReader) next() (sseEvent, bool) {
	var ev sseEvent
	started := false
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if started {
				return ev, true
			}
		case strings.HasPrefix(line, ":"):
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			started = true
			switch field {
			case "event":
				ev.name = value
			case "id":
				ev.id = value
			case "data":
				ev.data += value
			}
		}
	}
	return ev, false
}
