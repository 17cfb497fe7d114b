package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

var _ server.Store = (*sqlitestore.Store)(nil)

// storeKind makes a new, empty store for a test, and a second handle on the same
// database, as another process would have.
type storeKind struct {
	name string
	open func(t *testing.T) (st server.Store, another func() server.Store)
}

func sqliteStore(t *testing.T) server.Store {
	t.Helper()
	return openSQLite(t, t.TempDir())
}

func sqliteStores(t *testing.T) (server.Store, func() server.Store) {
	t.Helper()
	dir := t.TempDir()
	return openSQLite(t, dir), func() server.Store { return openSQLite(t, dir) }
}

// openSQLite opens a new SQLite store in dir, closed when tb ends.
func openSQLite(tb testing.TB, dir string, opts ...sqlitestore.Option) server.Store {
	tb.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(dir, "desk.db"), opts...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	return st
}

// pgStore opens a pgstore on a database of its own, or skips: without a server
// (internal/pgtest says how to run one), and while pgstore is not yet a server.Store (it
// keeps no tokens yet).
func pgStores(t *testing.T) (server.Store, func() server.Store) {
	t.Helper()
	dsn := pgtest.Database(t, "server")
	open := func() server.Store {
		st, err := pgstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		s, ok := any(st).(server.Store)
		if !ok {
			t.Skip("server: pgstore.Store is not a server.Store (it does not implement token.Store): the PostgreSQL runs of the handler tests skip")
		}
		return s
	}
	return open(), open
}

// stores are the stores every handler test runs on.
var stores = []storeKind{{"sqlite", sqliteStores}, {"postgres", pgStores}}

// eachStore runs f as a subtest on each store.
func eachStore(t *testing.T, f func(t *testing.T, st server.Store)) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, _ func() server.Store) { f(t, st) })
}

// eachStoreWithAnother runs f as a subtest on each store, with a way to open a second
// handle on its database.
func eachStoreWithAnother(t *testing.T, f func(t *testing.T, st server.Store, another func() server.Store)) {
	for _, k := range stores {
		t.Run(k.name, func(t *testing.T) {
			st, another := k.open(t)
			f(t, st, another)
		})
	}
}

// unwatched is a store without its Watcher: the server polls it.
type unwatched struct{ server.Store }

// env is a server under test, on 127.0.0.1, with its log captured.
type env struct {
	t   *testing.T
	st  server.Store
	srv *server.Server
	ts  *httptest.Server
	log *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func newEnv(t *testing.T, st server.Store, opts server.Options) *env {
	t.Helper()
	e := &env{t: t, st: st, log: new(syncBuffer)}
	opts.Logger = slog.New(slog.NewJSONHandler(e.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, err := server.New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	e.ts = httptest.NewServer(srv)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
		e.ts.CloseClientConnections()
		e.ts.Close()
	})
	return e
}

// token adds a token for p on desk and returns its secret.
func (e *env) token(desk string, p transcript.Author) string {
	e.t.Helper()
	secret, tok, err := token.New(desk, p, time.Now())
	if err != nil {
		e.t.Fatal(err)
	}
	if err := e.st.AddToken(e.t.Context(), tok); err != nil {
		e.t.Fatal(err)
	}
	return secret
}

// response is what a request got.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) problem(t *testing.T) problem {
	t.Helper()
	var p problem
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Fatalf("content type %q, want application/problem+json; body %s", ct, r.body)
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatalf("problem body %s: %v", r.body, err)
	}
	if p.Status != r.status {
		t.Errorf("problem status %d, response status %d", p.Status, r.status)
	}
	if !strings.HasPrefix(p.Type, server.ProblemTypeBase) {
		t.Errorf("problem type %q, want %s...", p.Type, server.ProblemTypeBase)
	}
	return p
}

type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
}

// kind is the problem type's last part ("not-found").
func (p problem) kind() string { return strings.TrimPrefix(p.Type, server.ProblemTypeBase) }

// do sends a request with the secret (none when ""), and body as JSON unless it is a
// string or []byte.
func (e *env) do(method, path, secret string, body any, hdr ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Content-Type" {
			req.Header.Del(hdr[i])
		}
		req.Header.Add(hdr[i], hdr[i+1])
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: b}
}

// decode decodes r's body into v, failing unless r has status want.
func decode[T any](t *testing.T, r response, want int) T {
	t.Helper()
	var v T
	if r.status != want {
		t.Fatalf("status %d, want %d: %s", r.status, want, r.body)
	}
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

// post appends content as the holder of secret, wanting 201, and returns the row.
func (e *env) post(secret string, body map[string]any) transcript.Message {
	e.t.Helper()
	return decode[transcript.Message](e.t, e.do("POST", "/v1/desks/eng/messages", secret, body), http.StatusCreated)
}

// sseEvent is one event read from a stream: a comment has only comment set.
type sseEvent struct {
	event, id, data, comment string
}

// stream is an open event stream.
type stream struct {
	t      *testing.T
	res    *http.Response
	events chan sseEvent
	cancel context.CancelFunc
}

// open opens an event stream on path and checks it answers 200 text/event-stream.
func (e *env) open(path, secret string, hdr ...string) *stream {
	e.t.Helper()
	ctx, cancel := context.WithCancel(e.t.Context())
	req, err := http.NewRequestWithContext(ctx, "GET", e.ts.URL+path, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if secret != "" {
		req.Header.Set("Authorization", "Bearer "+secret)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Add(hdr[i], hdr[i+1])
	}
	res, err := e.ts.Client().Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		cancel()
		e.t.Fatalf("stream %s: status %d, content type %q: %s", path, res.StatusCode, res.Header.Get("Content-Type"), b)
	}
	s := &stream{t: e.t, res: res, events: make(chan sseEvent, 1024), cancel: cancel}
	go s.read()
	e.t.Cleanup(s.close)
	return s
}

func (s *stream) close() {
	s.cancel()
	s.res.Body.Close()
}

// read parses the stream into events until it ends, then closes s.events.
func (s *stream) read() {
	defer close(s.events)
	sc := bufio.NewScanner(s.res.Body)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	var ev sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if ev != (sseEvent{}) {
				s.events <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, ":"):
			ev.comment = strings.TrimSpace(line[1:])
		default:
			name, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "event":
				ev.event = value
			case "id":
				ev.id = value
			case "data":
				ev.data += value
			}
		}
	}
}

// endsReinitialized reads s to its reinitialize event, whose reason must be
// watermark_unavailable, and fails when s ends first or carries a message event that
// foreign reports: a row of the desk made anew after s's desk was deleted.
func (s *stream) endsReinitialized(t *testing.T, foreign func(sseEvent) bool) {
	t.Helper()
	for {
		ev, ok := s.next(10 * time.Second)
		if !ok {
			t.Fatal("the old desk's stream ended without a reinitialize event")
		}
		if ev.event == "reinitialize" {
			var r server.ReinitializeEvent
			if err := json.Unmarshal([]byte(ev.data), &r); err != nil || r.Reason != "watermark_unavailable" {
				t.Fatalf("reinitialize event %q: %v", ev.data, err)
			}
			return
		}
		if ev.event == "message" && foreign(ev) {
			t.Fatalf("the old desk's stream carries row %s of the new desk: %s", ev.id, ev.data)
		}
	}
}

// next returns the next event that is not a comment, failing after timeout.
func (s *stream) next(timeout time.Duration) (sseEvent, bool) {
	s.t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return sseEvent{}, false
			}
			if ev.event == "" && ev.comment != "" {
				continue
			}
			return ev, true
		case <-deadline:
			s.t.Fatalf("no event within %v", timeout)
			return sseEvent{}, false
		}
	}
}

// quiet checks no event but comments arrives for d.
func (s *stream) quiet(d time.Duration) {
	s.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case ev, ok := <-s.events:
			if !ok {
				return
			}
			if ev.event != "" {
				s.t.Fatalf("unexpected event %+v", ev)
			}
		case <-deadline:
			return
		}
	}
}

// message decodes a message event.
func (ev sseEvent) message(t *testing.T) transcript.Message {
	t.Helper()
	return ev.row(t, "message")
}

// row decodes an event named name whose data is a Message.
func (ev sseEvent) row(t *testing.T, name string) transcript.Message {
	t.Helper()
	if ev.event != name {
		t.Fatalf("event %+v, want a %s", ev, name)
	}
	var m transcript.Message
	if err := json.Unmarshal([]byte(ev.data), &m); err != nil {
		t.Fatalf("%s %s: %v", name, ev.data, err)
	}
	return m
}

// Participants of the tests.
var (
	operator = transcript.Operator()
	triage   = transcript.Agent("triage", "Triage")
	coder    = transcript.Agent("coder", "Coder")
	ana      = transcript.Person("ana", "Ana")
)
