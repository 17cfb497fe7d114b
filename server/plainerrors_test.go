package server_test

import (
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/sharedesk/transcript/server"
)

// TestEveryErrorIsAProblem: the errors of the routes that are no operation (the page's
// static files, /mcp) and a header over the limit are application/problem+json, as every
// other error is.
func TestEveryErrorIsAProblem(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{})
	wantProblem(t, f.do("GET", "/static/no-such-file.css", "", nil), http.StatusNotFound, "not-found")
	wantProblem(t, f.do("GET", "/no/such/route", "", nil), http.StatusNotFound, "not-found")

	r := f.do("GET", "/mcp", f.triage, nil)
	wantProblem(t, r, http.StatusMethodNotAllowed, "method-not-allowed")
	if allow := r.header.Get("Allow"); allow != "POST" {
		t.Errorf("GET /mcp: Allow %q, want POST", allow)
	}
	wantProblem(t, f.do("POST", "/mcp", f.triage, "x", "Content-Type", "text/plain", "Accept", "application/json, text/event-stream"),
		http.StatusUnsupportedMediaType, "unsupported-media-type")
	wantProblem(t, f.do("POST", "/mcp", f.triage, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`), http.StatusBadRequest, "invalid-request") // no Accept

	big := strings.Repeat("a", 100<<10)
	wantProblem(t, f.do("GET", "/v1/desks", big, nil), http.StatusRequestHeaderFieldsTooLarge, "header-too-large")
	wantProblem(t, f.do("GET", "/healthz", "", nil, "X-Padding", big), http.StatusRequestHeaderFieldsTooLarge, "header-too-large")

	// Behind HTTPServer, whose connections read more header than the server answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := f.srv.HTTPServer(ln.Addr().String())
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	req, err := http.NewRequestWithContext(t.Context(), "GET", "http://"+ln.Addr().String()+"/v1/desks", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+big)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	wantProblem(t, response{status: res.StatusCode, header: res.Header, body: body}, http.StatusRequestHeaderFieldsTooLarge, "header-too-large")
	if f.log.String() == "" || strings.Contains(f.log.String(), big[:64]) {
		t.Error("the log holds the header, or nothing")
	}
}
