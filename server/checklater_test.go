package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// settling is a stand-in for a store whose Logs settle a request's pending token
// (token.Settler): the first read under a context carrying one looks the token up and
// settles it, good or not, and reads nothing for a token that is not good. lookups counts
// the server's own lookups.
type settling struct {
	server.Store
	settle  atomic.Bool // reads settle pendings; else they leave them to Confirm
	lookups atomic.Int64
}

func (s *settling) SettlesPending() bool { return true }

func (s *settling) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	s.lookups.Add(1)
	return s.Store.TokenByHash(ctx, hash)
}

func (s *settling) Log(desk string) transcript.Log { return settlingLog{s.Store.Log(desk), s} }

type settlingLog struct {
	transcript.Log
	s *settling
}

func (l settlingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if p := token.PendingOf(ctx); p != nil && l.s.settle.Load() {
		now, err := l.s.Store.TokenByHash(ctx, p.Hash())
		p.Settle(now, err)
		if err != nil || now.IsRevoked() {
			return transcript.Page{}, nil // gated: nothing read
		}
	}
	return l.Log.ReadBefore(ctx, before, limit)
}

// countingPG is a pgstore that counts the server's own token lookups (a read that
// settles a pending checks the token in its own statements, not through TokenByHash).
type countingPG struct {
	*pgstore.Store
	lookups *atomic.Int64
}

func (s countingPG) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	s.lookups.Add(1)
	return s.Store.TokenByHash(ctx, hash)
}

// TestTokenCheckedWithFirstRead: on a store that settles pending tokens (a stand-in over
// SQLite, and PostgreSQL), a view or thread list with a token the server accepted before
// makes no token lookup of its own: the token is checked with the read. Once the token is
// revoked, the next such request is 401, as before, with nothing of the answer it would
// have had, whatever that answer was (200, 404 for another desk, 400 for a bad
// parameter); the one after looks the token up first. A write is never served before its
// token is checked; with reads that settle nothing (the stand-in's), the check is made
// before the answer is written.
func TestTokenCheckedWithFirstRead(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		st := &settling{Store: openSQLite(t, t.TempDir())}
		testTokenCheckedWithFirstRead(t, st, &st.lookups, func(on bool) { st.settle.Store(on) }, true)
	})
	t.Run("postgres", func(t *testing.T) {
		pg, err := pgstore.Open(t.Context(), pgtest.Database(t, "server"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { pg.Close() })
		st := countingPG{pg, new(atomic.Int64)}
		testTokenCheckedWithFirstRead(t, st, st.lookups, nil, false)
	})
}

// testTokenCheckedWithFirstRead is TestTokenCheckedWithFirstRead on st, whose own token
// lookups lookups counts; settle, when not nil, turns its reads' settling on and off.
// refusals tells whether its reads settle a revoked token too (else they read nothing and
// leave it to Confirm, which looks it up).
func testTokenCheckedWithFirstRead(t *testing.T, st server.Store, lookupsOf *atomic.Int64, settle func(bool), refusals bool) {
	settles := []bool{true}
	if settle != nil {
		settles = append(settles, false)
	} else {
		settle = func(bool) {}
	}
	e := newEnv(t, st, server.Options{Rate: rate.Inf, AuthFailureRate: rate.Inf})
	op := e.token("eng", operator)
	root := e.post(op, map[string]any{"content": "deploy today?"})
	e.post(op, map[string]any{"content": "yes", "parent": root.Seq})

	lookups := func(what string, method, path, secret string, body any, status, want int) response {
		t.Helper()
		before := lookupsOf.Load()
		r := e.do(method, path, secret, body)
		if r.status != status {
			t.Fatalf("%s: %s %s: %d %s, want %d", what, method, path, r.status, r.body, status)
		}
		if got := lookupsOf.Load() - before; got != int64(want) {
			t.Errorf("%s: %s %s made %d token lookups of its own, want %d", what, method, path, got, want)
		}
		return r
	}
	for _, rt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/v1/desks/eng/view", 200},
		{"GET", "/v1/desks/eng/view?digest=true", 200},
		{"GET", "/v1/desks/eng/threads", 200},
		{"GET", "/v1/desks/ops/view", 404},
		{"GET", "/v1/desks/eng/view?window=5000", 400},
	} {
		for _, settled := range settles {
			settle(settled)
			secret := e.token("eng", coder)
			lookups("first request", "GET", "/v1/desks", secret, nil, 200, 1)
			wantLookups := 0 // the read settles it
			if !settled || rt.status != 200 {
				wantLookups = 1 // no read settles it: Confirm looks it up
			}
			r := lookups("a token accepted before", rt.method, rt.path, secret, nil, rt.status, wantLookups)
			if rt.status == 200 && !strings.Contains(string(r.body), "deploy") {
				t.Fatalf("%s: the answer holds no message: %s", rt.path, r.body)
			}
			lookups("a write", "POST", "/v1/desks/eng/messages", secret, map[string]any{"content": "deploy now"}, 201, 1)
			if err := st.RevokeToken(t.Context(), token.IDOf(token.Hash(secret)), time.Now()); err != nil {
				t.Fatal(err)
			}
			if !refusals {
				wantLookups = 1
			}
			r = lookups("revoked", rt.method, rt.path, secret, nil, 401, wantLookups)
			wantProblem(t, r, 401, "unauthorized")
			noSecret(t, string(r.body)+r.header.Get("WWW-Authenticate"), []string{secret, "deploy", "no such desk"})
			if challenge := r.header.Get("WWW-Authenticate"); !strings.Contains(challenge, `error="invalid_token"`) {
				t.Errorf("%s after the revocation: WWW-Authenticate %q", rt.path, challenge)
			}
			lookups("revoked, again", rt.method, rt.path, secret, nil, 401, 1)
		}
	}

	// Past its rate limit, a token revoked since it was accepted is told it is no longer
	// good (401), not to wait (429); a good one is told to wait.
	limited := newEnv(t, st, server.Options{Rate: rate.Every(time.Hour), Burst: 2, AuthFailureRate: rate.Inf})
	for _, revoke := range []bool{true, false} {
		secret := limited.token("eng", coder)
		for _, path := range []string{"/v1/desks", "/v1/desks/eng/view"} {
			if r := limited.do("GET", path, secret, nil); r.status != 200 {
				t.Fatalf("GET %s within the rate limit: %d %s", path, r.status, r.body)
			}
		}
		want := http.StatusTooManyRequests
		if revoke {
			want = http.StatusUnauthorized
			if err := st.RevokeToken(t.Context(), token.IDOf(token.Hash(secret)), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if r := limited.do("GET", "/v1/desks/eng/view", secret, nil); r.status != want {
			t.Errorf("past the rate limit, revoked %v: %d %s, want %d", revoke, r.status, r.body, want)
		}
	}
}
