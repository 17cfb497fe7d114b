package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/server"
)

// queryProblem is a problem's body with its errors.
type queryProblem struct {
	problem
	Errors []struct{ Message, Location string } `json:"errors"`
}

// everyRoute is every route of the service: each operation of the OpenAPI document, with
// the first query parameter it documents ("" for none), and the routes that are no
// operation (routes.go).
func everyRoute(t *testing.T, f *deskFixture) []struct{ method, path, param string } {
	t.Helper()
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct{ Name, In string } `json:"parameters"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(f.do("GET", "/openapi.json", "", nil).body, &doc); err != nil {
		t.Fatal(err)
	}
	var routes []struct{ method, path, param string }
	for path, methods := range doc.Paths {
		for method, op := range methods {
			param := ""
			for _, p := range op.Parameters {
				if p.In == "query" {
					param = p.Name
					break
				}
			}
			path := strings.NewReplacer("{desk}", "eng", "{seq}", "1").Replace(path)
			routes = append(routes, struct{ method, path, param string }{strings.ToUpper(method), path, param})
		}
	}
	if len(routes) != 19 {
		t.Fatalf("%d operations in the document, want 19", len(routes))
	}
	return append(routes, []struct{ method, path, param string }{
		{"GET", "/", ""}, {"GET", "/static/inspector.css", ""}, {"POST", "/mcp", ""},
		{"GET", "/openapi.json", ""}, {"GET", "/no/such/route", ""},
	}...)
}

// TestStrictQuery: on every route, a query parameter given twice, or whose value or name is
// not UTF-8 once decoded, or a query that is no query string, is a 400 problem that names
// the parameter (a parameter the service does not know as "*", never quoted), before the
// route reads anything; a query that is well formed is read as before.
func TestStrictQuery(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	type refusal struct{ query, message, location string }
	for _, route := range everyRoute(t, f) {
		name := route.param
		if name == "" {
			name = "q"
		}
		for _, tt := range []refusal{
			{name + "=hello%ffeveryone", "not UTF-8 text", "query." + name},
			{name + "=hello&" + name + "=zzz", "duplicate parameter", "query." + name},
			{name + "=1&other=2&" + name + "=1", "duplicate parameter", "query." + name},
			{name + "&" + name, "duplicate parameter", "query." + name},
			{"secret-trs_abc=1&secret-trs_abc=2", "duplicate parameter", "query.*"},
			{"na%ffme=1", "not UTF-8 text", "query.*"},
			{name + "=%zz", "not a query string", "query." + name},
			{name + "=1;x=2", "not a query string", "query." + name},
		} {
			r := quickDo(t, f.env, route.method, route.path+"?"+tt.query, f.op)
			if r.status != http.StatusBadRequest {
				t.Errorf("%s %s?%s: %d %s; want 400", route.method, route.path, tt.query, r.status, r.body)
				continue
			}
			p := wantProblem(t, r, http.StatusBadRequest, "invalid-request")
			var qp queryProblem
			json.Unmarshal(r.body, &qp)
			if len(qp.Errors) != 1 || !strings.HasPrefix(qp.Errors[0].Message, tt.message) || qp.Errors[0].Location != tt.location ||
				!strings.Contains(p.Detail, tt.location) {
				t.Errorf("%s %s?%s: %s; want %q at %s", route.method, route.path, tt.query, r.body, tt.message, tt.location)
			}
			if strings.Contains(string(r.body), "trs_") || strings.Contains(string(r.body), "zzz") || strings.Contains(string(r.body), "hello") {
				t.Errorf("%s %s?%s: the problem quotes the query: %s", route.method, route.path, tt.query, r.body)
			}
		}
	}

	// A well-formed query is read as it was: UTF-8 text, escaped or not, and + for a space.
	f.post(f.coder, map[string]any{"content": "héllo everyone"})
	for _, q := range []string{"q=h%C3%A9llo+everyone", "q=héllo%20everyone", "q=everyone&limit=5&"} {
		r := f.do("GET", "/v1/desks/eng/search?"+q, f.coder, nil)
		if r.status != http.StatusOK || !strings.Contains(string(r.body), "héllo everyone") {
			t.Errorf("search?%s: %d %s; want the row", q, r.status, r.body)
		}
	}
}

// quickDo sends a request with the secret and an empty JSON object as its body, and reads
// its answer for at most a few seconds: a stream answered as the request asked never ends.
func quickDo(t *testing.T, e *env, method, path, secret string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, e.ts.URL+path, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := e.ts.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return response{status: res.StatusCode, header: res.Header, body: body}
}

// serveOnLoopback serves a new server over st with Serve on a loopback port until the test
// ends, and returns its address.
func serveOnLoopback(t *testing.T, st server.Store) string {
	t.Helper()
	srv, err := server.New(st, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln, server.ServeOptions{DrainTimeout: 2 * time.Second}) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil && !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Serve: %v", err)
		}
	})
	return ln.Addr().String()
}

// rawExchange writes request to addr on a connection of its own while reading the answer,
// both within a few seconds, and returns the answer, its body read whole: a server that
// stops reading a request it refuses still has its answer read, and one that keeps the
// connection open after its answer is not waited for.
func rawExchange(t *testing.T, addr string, request io.Reader) *http.Response {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	go io.Copy(conn, request) // stops at the request's end, or when the server resets
	var got bytes.Buffer      // what was read, for the failure's message
	res, err := http.ReadResponse(bufio.NewReader(io.TeeReader(conn, &got)), nil)
	if err != nil {
		t.Fatalf("the answer (%d bytes) is no HTTP response: %v: %q", got.Len(), err, got.Bytes()[:min(got.Len(), 200)])
	}
	body, err := io.ReadAll(res.Body) // to the body's end, as the response frames it
	if err != nil {
		t.Fatalf("the answer's body: %v: %q", err, got.Bytes()[:min(got.Len(), 200)])
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res
}

// TestHeaderOfAnySizeIsAProblem: behind Serve, a request line or a header block the server
// refuses is a problem whatever its size: 100 KiB (the handler's limit), 300 KiB and 6 MiB
// (net/http's, which stops reading), as is a request net/http cannot parse, an HTTP version
// it does not serve and an expectation it does not meet.
func TestHeaderOfAnySizeIsAProblem(t *testing.T) {
	addr := serveOnLoopback(t, sqliteStore(t))
	for _, tt := range []struct {
		name, request string
		size          int // padding, streamed after the request's start
		status        int
		kind          string
	}{
		{"a header of 100 KiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ", 100 << 10, 431, "header-too-large"},
		{"a header of 300 KiB", "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Padding: ", 300 << 10, 431, "header-too-large"},
		{"a header of 6 MiB", "GET /v1/desks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ", 6 << 20, 431, "header-too-large"},
		{"a request line of 300 KiB", "GET /healthz?x=", 300 << 10, 431, "header-too-large"},
		{"a malformed header line", "GET /healthz HTTP/1.1\r\nHost: x\r\nno colon here", 0, 400, "invalid-request"},
		{"an unknown transfer coding", "POST /v1/desks/eng/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: zstd", 0, 501, "not-implemented"},
		{"an HTTP version net/http does not serve", "GET /healthz HTTP/2.0\r\nHost: x", 0, 505, "http-version-not-supported"},
		{"an expectation net/http does not meet", "GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: something-else", 0, 417, "expectation-failed"},
	} {
		end := "\r\n\r\n"
		if strings.HasPrefix(tt.name, "a request line") {
			end = " HTTP/1.1\r\nHost: x\r\n\r\n"
		}
		request := io.MultiReader(strings.NewReader(tt.request), io.LimitReader(repeatReader('a'), int64(tt.size)), strings.NewReader(end))
		res := rawExchange(t, addr, request)
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		wantProblem(t, response{status: res.StatusCode, header: res.Header, body: body}, tt.status, tt.kind)
		if bytes.Contains(body, []byte("aaaa")) {
			t.Errorf("%s: the problem quotes the request: %s", tt.name, body)
		}
	}
}

// repeatReader reads as an endless run of its byte.
type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}
