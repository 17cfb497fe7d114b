package server

import (
	"bytes"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer the server's goroutines write to and the test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// TestStatusWrittenOnce: a handler that sets a status after its answer began (as huma does,
// with 499, for a client gone mid-answer) changes neither what the client receives nor the
// request's log line, and net/http has nothing to warn of.
func TestStatusWrittenOnce(t *testing.T) {
	var logged, warned lockedBuffer
	s := &Server{opts: Options{Logger: slog.New(slog.NewTextHandler(&logged, nil)), WriteTimeout: time.Minute}, metrics: newMetrics()}
	h := s.logRequests(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "answer")
		w.WriteHeader(499)
	}))
	ts := httptest.NewUnstartedServer(h)
	ts.Config.ErrorLog = log.New(&warned, "", 0)
	ts.Start()
	defer ts.Close()
	res, err := ts.Client().Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusCreated || string(body) != "answer" {
		t.Errorf("the client received %d %q, want 201 \"answer\"", res.StatusCode, body)
	}
	ts.Close() // the request's log line is written before the server closes
	if w := warned.String(); w != "" {
		t.Errorf("net/http warned: %s", w)
	}
	if l := logged.String(); !bytes.Contains([]byte(l), []byte("status=201")) {
		t.Errorf("the request's log line: %s; want status=201", l)
	}
}
