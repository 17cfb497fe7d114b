package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// routesWithToken are the /v1/ routes, each with a request that is valid for the
// fixture's coder token (or, for an operator's route, refused for it only once
// authenticated).
var routesWithToken = []struct {
	method, path string
	body         any
}{
	{"GET", "/v1/desks", nil},
	{"GET", "/v1/desks/eng/view", nil},
	{"POST", "/v1/desks/eng/messages", map[string]any{"content": "auth matrix content"}},
	{"POST", "/v1/desks/eng/delta", map[string]any{"state": sharing.Initialized(transcript.Conversation{Desk: "eng"}, 0)}},
	{"GET", "/v1/desks/eng/threads", nil},
	{"GET", "/v1/desks/eng/events?thread=99", nil}, // 404 when authenticated: the request ends
	{"GET", "/v1/desks/eng/participants", nil},     // 403 for coder when authenticated
	{"POST", "/v1/desks/eng/elision-lines", map[string]any{"elided": []transcript.Elision{{From: 3, Through: 3, Count: 1, Readers: []transcript.Author{operator, triage}}}}},
	{"PATCH", "/v1/desks/eng/messages/2", map[string]any{"content": "auth matrix edit"}}, // coder's reply
	{"DELETE", "/v1/desks/eng/messages/2", nil},
	{"GET", "/v1/desks/eng/search?q=deploy", nil},
}

// TestAuthMatrix: every /v1/ route refuses a missing, malformed, unknown or revoked token
// with 401 and WWW-Authenticate, alike; a token for another desk gets the 404 of a desk
// that does not exist; and no response and no log line holds a secret or any content.
func TestAuthMatrix(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf, AuthFailureRate: rate.Inf})
		e := f.env
		unknown, _, err := token.New("eng", coder, time.Now()) // never stored
		if err != nil {
			t.Fatal(err)
		}
		revoked, rt, err := token.New("eng", coder, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddToken(t.Context(), rt); err != nil {
			t.Fatal(err)
		}
		if err := st.RevokeToken(t.Context(), rt.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		elsewhere := e.token("ops", coder)
		decode[transcript.Message](t, e.do("POST", "/v1/desks/ops/messages", elsewhere, map[string]any{"content": "desk ops exists"}), http.StatusCreated)
		secrets := []string{f.op, f.triage, f.coder, unknown, revoked, elsewhere}

		refusals := []struct {
			name, header string
			twice        bool
			missing      bool
		}{
			{name: "missing", missing: true},
			{name: "empty", header: "", missing: true},
			{name: "basic", header: "Basic " + f.coder},
			{name: "no credential", header: "Bearer"},
			{name: "two credentials", header: "Bearer " + f.coder + " " + f.coder},
			{name: "not a secret", header: "Bearer trs_tooShort"},
			{name: "two headers", header: "Bearer " + f.coder, twice: true},
			{name: "unknown", header: "Bearer " + unknown},
			{name: "revoked", header: "Bearer " + revoked},
		}
		for _, rt := range routesWithToken {
			for _, c := range refusals {
				hdr := []string{}
				if c.header != "" {
					hdr = append(hdr, "Authorization", c.header)
					if c.twice {
						hdr = append(hdr, "Authorization", c.header)
					}
				}
				r := e.do(rt.method, rt.path, "", rt.body, hdr...)
				wantProblem(t, r, 401, "unauthorized")
				challenge := r.header.Get("WWW-Authenticate")
				if !strings.HasPrefix(challenge, "Bearer") || strings.Contains(challenge, "invalid_token") == c.missing {
					t.Errorf("%s %s, %s: WWW-Authenticate %q", rt.method, rt.path, c.name, challenge)
				}
				noSecret(t, string(r.body), secrets)
			}
			if rt.path == "/v1/desks" {
				continue
			}
			// coder's token is for eng: on ops, a desk with rows, and on a desk that does
			// not exist, the same 404, naming the token's own desk and not the path's.
			missing := wantProblem(t, e.do(rt.method, strings.Replace(rt.path, "/eng/", "/nosuchdesk/", 1), f.coder, rt.body), 404, "not-found")
			notMine := wantProblem(t, e.do(rt.method, strings.Replace(rt.path, "/eng/", "/ops/", 1), f.coder, rt.body), 404, "not-found")
			if missing != notMine {
				t.Errorf("%s %s: eng's token on desk ops gets %+v, on a desk that does not exist %+v", rt.method, rt.path, notMine, missing)
			}
			if want := `no such desk: this token is for desk "eng"`; notMine.Detail != want {
				t.Errorf("%s %s: eng's token on desk ops gets the detail %q, want %q", rt.method, rt.path, notMine.Detail, want)
			}
			if got := wantProblem(t, e.do(rt.method, rt.path, elsewhere, rt.body), 404, "not-found"); got.Detail != `no such desk: this token is for desk "ops"` {
				t.Errorf("%s %s: ops's token on desk eng gets %+v, want the detail naming desk ops", rt.method, rt.path, got)
			}
		}

		// A participant may not read as anyone; the operator may.
		for _, path := range []string{"/v1/desks/eng/view?as=agent:triage", "/v1/desks/eng/threads?as=agent:triage", "/v1/desks/eng/events?as=agent:triage",
			"/v1/desks/eng/search?q=launch&as=agent:triage"} {
			wantProblem(t, e.do("GET", path, f.coder, nil), 403, "forbidden")
		}
		wantProblem(t, e.do("POST", "/v1/desks/eng/delta?as=agent:triage", f.coder, routesWithToken[3].body), 403, "forbidden")
		p := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view?as=agent:coder", f.op, nil), 200)
		q := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view", f.coder, nil), 200)
		if seqs(p.Messages) != seqs(q.Messages) || len(p.Elided) != len(q.Elided) {
			t.Errorf("the operator as coder sees %s (%d elided), coder %s (%d elided)", seqs(p.Messages), len(p.Elided), seqs(q.Messages), len(q.Elided))
		}

		// The author comes from the token: a body may not name one.
		r := e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "forged", "author": map[string]any{"type": "operator"}})
		wantProblem(t, r, 400, "invalid-request")
		m := e.post(f.coder, map[string]any{"content": "as myself"})
		if !m.Author.Same(coder) {
			t.Errorf("author %v, want the token's participant", m.Author)
		}

		// What coder may not read is what does not exist, and nothing of it shows.
		for _, r := range []response{
			e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "a reply", "parent": f.aside.Seq}),
			e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", f.aside.Seq), f.coder, nil),
			e.do("GET", fmt.Sprintf("/v1/desks/eng/events?thread=%d", f.aside.Seq), f.coder, nil),
			e.do("GET", fmt.Sprintf("/v1/desks/eng/search?q=launch&thread=%d", f.aside.Seq), f.coder, nil),
		} {
			wantProblem(t, r, 404, "not-found")
		}

		logs := e.log.String()
		noSecret(t, logs, secrets)
		for _, content := range []string{asideText, "deploy today?", "auth matrix content", "auth matrix edit", "forged", "as myself", "a reply"} {
			if strings.Contains(logs, content) {
				t.Errorf("the log holds content %q", content)
			}
		}
		for _, want := range []string{`"refused":"missing"`, `"refused":"malformed"`, `"refused":"unknown"`, `"refused":"revoked"`, `"token":"tok_`} {
			if !strings.Contains(logs, want) {
				t.Errorf("the log has no %s", want)
			}
		}
	})
}

// noSecret fails when s holds any of secrets, or the body of one (without its prefix).
func noSecret(t *testing.T, s string, secrets []string) {
	t.Helper()
	for _, secret := range secrets {
		if strings.Contains(s, strings.TrimPrefix(secret, token.SecretPrefix)) {
			t.Errorf("a secret appears in %q", s)
			return
		}
	}
}

// TestRateLimit: past its burst a token gets 429 with Retry-After; another token does
// not.
func TestRateLimit(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: 0.5, Burst: 3})
	var last response
	for range 5 {
		last = f.do("GET", "/v1/desks", f.triage, nil)
	}
	wantProblem(t, last, http.StatusTooManyRequests, "rate-limited")
	if ra := last.header.Get("Retry-After"); ra != "2" {
		t.Errorf("Retry-After %q, want 2 (a request every two seconds)", ra)
	}
	decode[server.DeskList](t, f.do("GET", "/v1/desks", f.op, nil), 200)
	if f.metric("transcript_rate_limited_total") < 1 {
		t.Error("no rate-limited request counted")
	}
}

// TestBareTokenNamesTheScheme: a token sent without the Bearer scheme ("Authorization:
// TOKEN", or another scheme) is a 401 whose detail says how the header is written, on every
// route that takes a token, /mcp among them; it never quotes the header.
func TestBareTokenNamesTheScheme(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf, AuthFailureRate: rate.Inf})
	const want = `the Authorization header needs the Bearer scheme: "Authorization: Bearer TOKEN"`
	routes := append(routesWithToken[:len(routesWithToken):len(routesWithToken)], struct {
		method, path string
		body         any
	}{"POST", "/mcp", map[string]any{}})
	for _, rt := range routes {
		for _, header := range []string{f.coder, "Basic " + f.coder, "Token " + f.coder} {
			r := f.do(rt.method, rt.path, "", rt.body, "Authorization", header)
			if p := wantProblem(t, r, http.StatusUnauthorized, "unauthorized"); p.Detail != want {
				t.Errorf("%s %s with Authorization %.6s…: detail %q, want %q", rt.method, rt.path, header, p.Detail, want)
			}
			noSecret(t, string(r.body), []string{f.coder})
		}
	}
	// Every other refusal keeps the one detail for all.
	p := wantProblem(t, f.do("GET", "/v1/desks", "", nil, "Authorization", "Bearer trs_tooShort"), http.StatusUnauthorized, "unauthorized")
	if p.Detail == want {
		t.Errorf("a malformed secret after Bearer is told to add the scheme: %q", p.Detail)
	}
	if logs := f.log.String(); !strings.Contains(logs, `"refused":"not-bearer"`) {
		t.Errorf("the log has no not-bearer refusal:\n%s", logs)
	}
}
