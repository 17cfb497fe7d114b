package server_test

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestMaxTotalStreams: past the cap on streams across tokens the next stream is 503
// (streams-full) with Retry-After, whichever token asks, while /healthz and ordinary
// requests are answered; a closed stream frees its place.
func TestMaxTotalStreams(t *testing.T) {
	st := sqliteStore(t)
	e := newEnv(t, st, server.Options{MaxStreams: 2, MaxTotalStreams: 3, StreamRetryAfter: 7 * time.Second})
	a, b, c := e.token("eng", triage), e.token("eng", coder), e.token("eng", transcript.Agent("late", "Late"))
	first := e.open("/v1/desks/eng/events", a)
	e.open("/v1/desks/eng/events", a)
	e.open("/v1/desks/eng/events", b)

	r := e.do("GET", "/v1/desks/eng/events", c, nil)
	if p := wantProblem(t, r, http.StatusServiceUnavailable, "streams-full"); r.header.Get("Retry-After") != "7" {
		t.Errorf("a fourth stream: Retry-After %q, want 7 (%+v)", r.header.Get("Retry-After"), p)
	}
	wantProblem(t, e.do("GET", "/v1/desks/eng/events", a, nil), http.StatusTooManyRequests, "too-many-streams") // a's own cap comes first
	if r := e.do("GET", "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("/healthz with every stream taken: %d %s", r.status, r.body)
	}
	if r := e.do("GET", "/v1/desks/eng/view", c, nil); r.status != http.StatusOK {
		t.Errorf("a view with every stream taken: %d %s", r.status, r.body)
	}

	first.close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		status := openStatus(t, e, "/v1/desks/eng/events", c)
		if status == http.StatusOK {
			break
		}
		if status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("a stream after one of three closed: %d, want 200", status)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// openStatus opens a stream on path, returns its status and closes it.
func openStatus(t *testing.T, e *env, path, secret string) int {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", e.ts.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		io.Copy(io.Discard, res.Body)
	}
	return res.StatusCode
}
