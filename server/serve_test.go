package server_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// serving is a Server run by Serve on a loopback port, until cancel.
type serving struct {
	t        *testing.T
	url      string
	cancel   context.CancelCauseFunc
	returned chan error
	draining chan error // the cause Draining was called with
}

func startServe(t *testing.T, st server.Store, opts server.ServeOptions) *serving {
	t.Helper()
	srv, err := server.New(st, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	s := &serving{t: t, url: "http://" + ln.Addr().String(), cancel: cancel, returned: make(chan error, 1), draining: make(chan error, 1)}
	opts.Draining = func(cause error) { s.draining <- cause }
	go func() { s.returned <- srv.Serve(ctx, ln, opts) }()
	t.Cleanup(func() { cancel(nil) })
	return s
}

// get opens path with secret and returns its response, whose body the caller reads.
func (s *serving) get(path, secret string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequest("GET", s.url+path, nil)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	return resp
}

// post appends body to desk eng with secret, from any goroutine, and returns the status.
func (s *serving) post(secret, body string) (int, error) {
	req, err := http.NewRequest("POST", s.url+"/v1/desks/eng/messages", strings.NewReader(body))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func addToken(t *testing.T, st server.Store, desk string) string {
	t.Helper()
	secret, tok, err := token.New(desk, ana, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToken(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	return secret
}

// TestServeDrains: once Serve's ctx is done, Draining hears the cause, an open event stream
// ends, an append in flight finishes (201) before Serve returns, and Serve returns nil.
func TestServeDrains(t *testing.T) {
	st := &blockingStore{Store: sqliteStore(t), began: make(chan struct{}, 1), release: make(chan struct{})}
	secret := addToken(t, st, "eng")
	s := startServe(t, st, server.ServeOptions{DrainTimeout: time.Minute})

	stream := s.get("/v1/desks/eng/events", secret)
	if stream.StatusCode != 200 {
		t.Fatalf("GET events: %d", stream.StatusCode)
	}
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream.Body); ended <- err }()
	appended := make(chan int, 1)
	go func() {
		code, _ := s.post(secret, `{"content":"in flight"}`)
		appended <- code
	}()
	<-st.began

	stop := errors.New("told to stop")
	s.cancel(stop)
	if cause := <-s.draining; cause != stop {
		t.Errorf("Draining's cause: %v, want %v", cause, stop)
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("the stream ended with %v, want its end", err)
		}
	case err := <-s.returned:
		t.Fatalf("Serve returned (%v) with a stream open and an append in flight", err)
	}
	stream.Body.Close()
	select {
	case err := <-s.returned:
		t.Fatalf("Serve returned (%v) while an append was in flight", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(st.release)
	if code := <-appended; code != 201 {
		t.Errorf("the append in flight: %d, want 201", code)
	}
	if err := <-s.returned; err != nil {
		t.Errorf("Serve: %v, want nil", err)
	}
	if _, err := net.Dial("tcp", strings.TrimPrefix(s.url, "http://")); err == nil {
		t.Error("Serve returned with its listener still accepting")
	}
}

// TestServeDrainTimeout: past DrainTimeout, Serve cuts the request left and returns an
// error matching context.DeadlineExceeded.
func TestServeDrainTimeout(t *testing.T) {
	st := &blockingStore{Store: sqliteStore(t), began: make(chan struct{}, 1), release: make(chan struct{})}
	defer close(st.release)
	secret := addToken(t, st, "eng")
	s := startServe(t, st, server.ServeOptions{DrainTimeout: 50 * time.Millisecond})
	cut := make(chan error, 1)
	go func() {
		_, err := s.post(secret, `{"content":"slow"}`)
		cut <- err
	}()
	<-st.began
	s.cancel(nil)
	<-s.draining
	if err := <-s.returned; !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Serve: %v, want context.DeadlineExceeded", err)
	}
	if err := <-cut; err == nil {
		t.Error("the request left was answered, want its connection cut")
	}
}

// failingListener fails its first Accept.
type failingListener struct{ net.Listener }

var errAccept = errors.New("accept failed")

func (l failingListener) Accept() (net.Conn, error) { return nil, errAccept }

// TestServeListenerFails: a listener that fails ends Serve with its error, without a drain.
func TestServeListenerFails(t *testing.T) {
	srv, err := server.New(sqliteStore(t), server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	drained := false
	err = srv.Serve(context.Background(), failingListener{ln}, server.ServeOptions{Draining: func(error) { drained = true }})
	if !errors.Is(err, errAccept) || drained {
		t.Errorf("Serve: %v (drained %v), want %v and no drain", err, drained, errAccept)
	}
}
