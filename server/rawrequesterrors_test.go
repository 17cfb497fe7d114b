package server_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript/server"
)

// TestRawRequestErrorsAreProblems: a request line or header block the server refuses is
// answered with application/problem+json.
func TestRawRequestErrorsAreProblems(t *testing.T) {
	st := sqliteStore(t)
	srv, err := server.New(st, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln, server.ServeOptions{DrainTimeout: time.Second}) }()
	t.Cleanup(func() { cancel(); <-done })
	for _, tc := range []struct {
		raw    string
		status int
	}{
		{"GET /healthz HTTP/1.1\r\n\r\n", http.StatusBadRequest},                                             // no Host
		{"GET /healthz HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n\r\n", http.StatusNotImplemented},   // unknown coding
		{"GET /healthz HTTP/2.0\r\nHost: a\r\n\r\n", http.StatusHTTPVersionNotSupported},                     // a version net/http does not serve
		{"GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n\r\n", http.StatusExpectationFailed}, // an expectation net/http does not meet
	} {
		raw := tc.raw
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, raw)
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Errorf("%q: %v", raw, err)
			c.Close()
			continue
		}
		body, _ := io.ReadAll(res.Body)
		c.Close()
		if res.StatusCode != tc.status || res.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%q: %d, Content-Type %q, body %q; want a problem", strings.SplitN(raw, "\r\n", 2)[0]+"...", res.StatusCode, res.Header.Get("Content-Type"), body)
		} else {
			t.Logf("%q: %d %s %s", raw, res.StatusCode, res.Header.Get("Content-Type"), body)
		}
	}
}
