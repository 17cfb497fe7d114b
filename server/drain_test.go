package server_test

import (
	"context"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// blockingStore holds every append (AppendNew, which the server calls) until release is
// closed, and says when one began.
type blockingStore struct {
	server.Store
	began   chan struct{}
	release chan struct{}
}

func (s *blockingStore) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	s.began <- struct{}{}
	<-s.release
	return s.Store.AppendNew(ctx, desk, m)
}

// TestShutdown: Shutdown ends the open streams, refuses new requests with 503, and lets an
// append in flight finish before it returns.
func TestShutdown(t *testing.T) {
	inner := sqliteStore(t)
	e := newEnv(t, inner, server.Options{})
	coder := e.token("eng", coder)
	s := e.open("/v1/desks/eng/events", coder)

	st := &blockingStore{Store: inner, began: make(chan struct{}, 1), release: make(chan struct{})}
	blocked := newEnv(t, st, server.Options{})
	secret := blocked.token("eng", ana)
	appended := make(chan response, 1)
	go func() {
		appended <- blocked.do("POST", "/v1/desks/eng/messages", secret, map[string]any{"content": "in flight"})
	}()
	<-st.began

	shut := make(chan error, 1)
	go func() { shut <- blocked.srv.Shutdown(context.Background()) }()
	if err := e.srv.Shutdown(context.Background()); err != nil {
		t.Fatalf("Shutdown with a stream open: %v", err)
	}
	for {
		ev, ok := <-s.events
		if !ok {
			break
		}
		if ev.event != "" {
			t.Fatalf("event %+v after Shutdown", ev)
		}
	}
	wantProblem(t, e.do("GET", "/v1/desks", coder, nil), 503, "unavailable")

	select {
	case err := <-shut:
		t.Fatalf("Shutdown returned (%v) while an append was in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	wantProblem(t, blocked.do("GET", "/healthz", "", nil), 503, "unavailable")
	close(st.release)
	if r := <-appended; r.status != 201 {
		t.Fatalf("the append in flight: %d %s, want 201", r.status, r.body)
	}
	if err := <-shut; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if _, err := inner.Log("eng").ReadBefore(t.Context(), 0, 1); err != nil {
		t.Fatal(err)
	}
}

// TestShutdownDeadline: Shutdown gives up at its ctx's deadline while a request is in
// flight.
func TestShutdownDeadline(t *testing.T) {
	st := &blockingStore{Store: sqliteStore(t), began: make(chan struct{}, 1), release: make(chan struct{})}
	e := newEnv(t, st, server.Options{})
	secret := e.token("eng", ana)
	done := make(chan struct{})
	go func() { e.do("POST", "/v1/desks/eng/messages", secret, map[string]any{"content": "slow"}); close(done) }()
	<-st.began
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != context.DeadlineExceeded {
		t.Errorf("Shutdown: %v, want context.DeadlineExceeded", err)
	}
	close(st.release)
	<-done
}
