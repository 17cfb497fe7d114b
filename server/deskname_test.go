package server_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/desknames"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// TestDeskNamesInPaths: a path naming a desk transcript.ValidateDesk refuses is 404, as a
// desk the token does not name is (no token can name one); a token for a desk with any name
// the rule accepts reads and writes it.
func TestDeskNamesInPaths(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{})
		secret := e.token("eng", triage)
		for what, desk := range desknames.Refused {
			for _, route := range []struct{ method, path string }{{"GET", "/view"}, {"POST", "/messages"}} {
				r := e.do(route.method, "/v1/desks/"+escapeSegment(desk)+route.path, secret, `{"content":"x"}`)
				wantProblem(t, r, http.StatusNotFound, "not-found")
				if t.Failed() {
					t.Fatalf("%s of desk %q (%s)", route.method, desk, what)
				}
			}
		}
		for what, desk := range desknames.Accepted {
			secret := e.token(desk, triage)
			path := "/v1/desks/" + url.PathEscape(desk)
			m := decode[transcript.Message](t, e.do("POST", path+"/messages", secret, `{"content":"hello"}`), http.StatusCreated)
			p := decode[transcript.Projection](t, e.do("GET", path+"/view", secret, nil), http.StatusOK)
			if len(p.Messages) != 1 || p.Messages[0].Seq != m.Seq {
				t.Errorf("view of desk %q (%s) = %+v, want its row %d", desk, what, p.Messages, m.Seq)
			}
		}
	})
}

// escapeSegment escapes every byte of s that url.PathEscape would leave, dots included,
// so that a client's path holds s as one segment, "." and ".." too.
func escapeSegment(s string) string {
	return strings.ReplaceAll(url.PathEscape(s), ".", "%2E")
}

// oldDeskTokens is a store whose tokens for desk "eng" read back for desk old, as a token
// an older version stored for a desk whose name transcript.ValidateDesk now refuses.
type oldDeskTokens struct {
	server.Store
	old string
}

func (s oldDeskTokens) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	t, err := s.Store.TokenByHash(ctx, hash)
	if err == nil && t.Desk == "eng" {
		t.Desk = s.old
	}
	return t, err
}

// TestOldDeskNameIsReadOnly: a token for a desk whose name breaks the rule still reads the
// desk, and a post to it is a 400 that says why.
func TestOldDeskNameIsReadOnly(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		const old = "eng team"
		e := newEnv(t, oldDeskTokens{st, old}, server.Options{})
		secret := e.token("eng", triage)
		path := "/v1/desks/" + url.PathEscape(old)
		decode[transcript.Projection](t, e.do("GET", path+"/view", secret, nil), http.StatusOK)
		p := wantProblem(t, e.do("POST", path+"/messages", secret, `{"content":"x"}`), http.StatusBadRequest, "invalid-message")
		if !strings.Contains(p.Detail, "desk's name breaks the rule") {
			t.Errorf("detail %q, want it to say the desk's name breaks the rule", p.Detail)
		}
	})
}
