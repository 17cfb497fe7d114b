package server_test

import (
	"strings"
	"testing"

	"github.com/sharedesk/transcript/server"
)

// TestProblemsEchoNothing: a request the service cannot parse gets a problem that quotes
// nothing of it: not a content type, a number or a byte of a body it could not decode, nor
// a query value, an unknown query parameter's name, an unknown field's name that could be
// a secret, or an unknown method, which may be anything the client sent, a secret pasted
// in the wrong place among it.
func TestProblemsEchoNothing(t *testing.T) {
	st := sqliteStore(t)
	e := newEnv(t, st, server.Options{})
	secret := e.token("eng", triage)
	const probe = "trsProbe7"
	secretLike := e.token("eng", coder) // a name with the form of a token secret
	for _, tt := range []struct {
		name, method, path, body string
		hdr                      []string
		echo                     string // what the problem must not quote, besides probe
	}{
		{name: "content type", method: "POST", path: "/v1/desks/eng/messages", body: `{"content":"x"}`, hdr: []string{"Content-Type", probe + "/x"}},
		{name: "huge number", method: "POST", path: "/v1/desks/eng/messages", body: `{"content":"x","parent":14000000000000000000000000` + probe[len(probe)-1:] + `}`, echo: "14000000000000000000000000"},
		{name: "bad literal", method: "POST", path: "/v1/desks/eng/messages", body: `{"content":t` + probe + `}`},
		{name: "not json", method: "POST", path: "/v1/desks/eng/messages", body: probe},
		{name: "wrong type", method: "POST", path: "/v1/desks/eng/messages", body: `{"content":["` + probe + `"]}`},
		// A plain unknown field's name is quoted (TestUnknownPropertyNamed); one with the
		// form of a secret is not.
		{name: "unknown field", method: "POST", path: "/v1/desks/eng/messages", body: `{"content":"x","` + secretLike + `":1}`, echo: secretLike},
		{name: "delta state", method: "POST", path: "/v1/desks/eng/delta", body: `{"state":{"watermark":"` + probe + `"}}`},
		{name: "query value", method: "GET", path: "/v1/desks/eng/view?window=" + probe},
		{name: "unknown query", method: "GET", path: "/v1/desks/eng/view?" + probe + "=1"},
		{name: "as", method: "GET", path: "/v1/desks/eng/view?as=agent:" + probe + "%00"},
		{name: "last event id", method: "GET", path: "/v1/desks/eng/events", hdr: []string{"Last-Event-ID", probe}},
		{name: "method", method: probe, path: "/v1/desks/eng/view"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var body any
			if tt.body != "" {
				body = tt.body
			}
			r := e.do(tt.method, tt.path, secret, body, tt.hdr...)
			if r.status < 400 {
				t.Fatalf("status %d, want an error: %s", r.status, r.body)
			}
			if strings.Contains(strings.ToLower(string(r.body)), strings.ToLower(probe)) || (tt.echo != "" && strings.Contains(string(r.body), tt.echo)) {
				t.Errorf("status %d: the problem quotes the request: %s", r.status, r.body)
			}
		})
	}
	if m := e.do("GET", "/metrics", "", nil); strings.Contains(strings.ToLower(string(m.body)), strings.ToLower(probe)) {
		t.Errorf("/metrics quotes a request's method:\n%s", m.body)
	}
}

// TestProblemsKeepTheSchema: a body the schema refuses still says why, in the schema's
// words: the fixed texts of TestProblemsEchoNothing replace only a decoder's message.
func TestProblemsKeepTheSchema(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	r := e.do("POST", "/v1/desks/eng/messages", e.token("eng", triage), `{}`)
	if r.status != 400 || !strings.Contains(string(r.body), "expected required property content to be present") {
		t.Errorf("POST {}: %d %s; want 400 naming the missing content", r.status, r.body)
	}
}

// TestNoStore: every answer that holds a desk's content tells caches to keep none of it,
// the streams' included: it is one participant's, and a session cookie (unlike a bearer
// token) does not keep a shared cache from storing it.
func TestNoStore(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	op := e.token("eng", operator)
	e.post(op, map[string]any{"content": "private to the desk"})
	for _, path := range []string{"/v1/desks", "/v1/desks/eng/view", "/v1/desks/eng/rows", "/v1/desks/eng/threads", "/v1/desks/eng/model?format=anthropic", "/v1/desks/nowhere/view"} {
		if r := e.do("GET", path, op, nil); r.header.Get("Cache-Control") != "private, no-store" {
			t.Errorf("GET %s: %d, Cache-Control %q, want private, no-store", path, r.status, r.header.Get("Cache-Control"))
		}
	}
	s := e.open("/v1/desks/eng/events", op)
	if got := s.res.Header.Get("Cache-Control"); got != "private, no-store" {
		t.Errorf("events: Cache-Control %q, want private, no-store", got)
	}
}
