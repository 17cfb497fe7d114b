package server_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// TestRevokedAfterUse: a token that read before is refused, on every GET and HEAD of
// /v1/, by the first request after it is revoked in the store behind the server's back (as
// the command does, from another process): 401 with the challenge of an invalid token,
// nothing of the answer it would have had, and a log line naming the refusal and no token.
func TestRevokedAfterUse(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf, AuthFailureRate: rate.Inf})
		e := f.env
		for _, rt := range []struct {
			method, path string
			status       int
		}{
			{"GET", "/v1/desks", 200},
			{"GET", "/v1/desks/eng/view", 200},
			{"HEAD", "/v1/desks/eng/view", 200},
			{"GET", "/v1/desks/eng/threads", 200},
			{"GET", "/v1/desks/eng/search?q=deploy", 200},
			{"GET", "/v1/desks/eng/events?thread=99", 404},
			{"GET", "/v1/desks/ops/view", 404},
		} {
			secret, tok, err := token.New("eng", coder, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := st.AddToken(t.Context(), tok); err != nil {
				t.Fatal(err)
			}
			for range 3 {
				if r := e.do(rt.method, rt.path, secret, nil); r.status != rt.status {
					t.Fatalf("%s %s before the revocation: %d %s, want %d", rt.method, rt.path, r.status, r.body, rt.status)
				}
			}
			if err := st.RevokeToken(t.Context(), tok.ID, time.Now()); err != nil {
				t.Fatal(err)
			}
			logged := len(e.log.String())
			r := e.do(rt.method, rt.path, secret, nil)
			if r.status != http.StatusUnauthorized {
				t.Fatalf("%s %s after the revocation: %d %s, want 401", rt.method, rt.path, r.status, r.body)
			}
			if rt.method == "GET" {
				wantProblem(t, r, 401, "unauthorized")
				noSecret(t, string(r.body), []string{secret, "deploy"})
			}
			if challenge := r.header.Get("WWW-Authenticate"); !strings.Contains(challenge, `error="invalid_token"`) {
				t.Errorf("%s %s after the revocation: WWW-Authenticate %q", rt.method, rt.path, challenge)
			}
			if cc := r.header.Get("Cache-Control"); cc != "private, no-store" {
				t.Errorf("%s %s after the revocation: Cache-Control %q", rt.method, rt.path, cc)
			}
			lines := requestLines(t, e.log.String()[logged:])
			for deadline := time.Now().Add(5 * time.Second); len(lines) == 0 && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond) // the line is written once the answer is sent
				lines = requestLines(t, e.log.String()[logged:])
			}
			if len(lines) != 1 || lines[0]["refused"] != "revoked" || lines[0]["status"] != float64(401) || lines[0]["token"] != nil {
				t.Errorf("%s %s after the revocation: request log %v, want one line refused revoked, status 401, no token", rt.method, rt.path, lines)
			}
			if r := e.do(rt.method, rt.path, secret, nil); r.status != http.StatusUnauthorized {
				t.Errorf("%s %s again after the revocation: %d, want 401", rt.method, rt.path, r.status)
			}
		}
	})
}

// requestLines are the request log's lines in logs, decoded.
func requestLines(t *testing.T, logs string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	sc := bufio.NewScanner(strings.NewReader(logs))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line %s: %v", sc.Bytes(), err)
		}
		if line["msg"] == "request" {
			lines = append(lines, line)
		}
	}
	return lines
}
