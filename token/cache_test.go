package token_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// lookupCounter is a Store that counts its TokenByHash calls and may fail them.
type lookupCounter struct {
	*token.MemStore
	lookups int
	fail    error
}

func (s *lookupCounter) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	s.lookups++
	if s.fail != nil {
		return token.Token{}, s.fail
	}
	return s.MemStore.TokenByHash(ctx, hash)
}

// TestCacheAuthenticate: a header the Cache has not seen is Authenticate's (one lookup, and
// the same refusals); a good token is remembered and comes back with a Pending and no
// lookup; a refused one is not remembered.
func TestCacheAuthenticate(t *testing.T) {
	st := &lookupCounter{MemStore: newMemStore()}
	c := token.NewCache(8)
	secret, tok := addNew(t, st, "eng", triage)
	revokedSecret, revoked := addNew(t, st, "eng", transcript.Person("ana", "Ana"))
	if err := st.RevokeToken(t.Context(), revoked.ID, created.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}

	got, p, err := c.Authenticate(t.Context(), st, "Bearer "+secret)
	if err != nil || p != nil || got.ID != tok.ID || st.lookups != 1 {
		t.Fatalf("first request: %v, pending %v, %v, %d lookups; want the token, no pending, 1 lookup", got, p, err, st.lookups)
	}
	got, p, err = c.Authenticate(t.Context(), st, "bearer  "+secret)
	if err != nil || p == nil || got.ID != tok.ID || p.Token().ID != tok.ID || p.Hash() != tok.Hash || st.lookups != 1 {
		t.Fatalf("second request: %v, pending %v, %v, %d lookups; want the token with a pending and no lookup", got, p, err, st.lookups)
	}

	for _, h := range []struct {
		header string
		want   error
	}{
		{"Bearer " + revokedSecret, token.ErrRevoked},
		{"Bearer " + revokedSecret, token.ErrRevoked}, // not remembered: looked up again
		{"", token.ErrMissing},
		{secret, token.ErrNotBearer},
		{"Bearer " + secret + " " + secret, token.ErrMalformed},
	} {
		before := st.lookups
		got, p, err := c.Authenticate(t.Context(), st, h.header)
		if !errors.Is(err, h.want) || p != nil || got != (token.Token{}) {
			t.Errorf("header %q: %v, pending %v, %v; want %v and nothing else", h.header, got, p, err, h.want)
		}
		checkQuotesNothing(t, "Cache.Authenticate", fmt.Sprint(err), secret)
		if h.want == token.ErrRevoked && st.lookups != before+1 {
			t.Errorf("header of a revoked token: %d lookups, want 1", st.lookups-before)
		}
	}
}

// TestPendingConfirm: Confirm takes what a read settled, reading nothing, and reads the
// token itself when no read settled it; a token found revoked or unknown is refused and
// forgotten by the Cache, so that the next request looks it up; a store that cannot say is
// an error that is no refusal.
func TestPendingConfirm(t *testing.T) {
	storeFailed := errors.New("the database is down")
	for _, tc := range []struct {
		name    string
		settle  func(st *lookupCounter, tok token.Token, p *token.Pending)
		want    error // nil, or what the error matches
		lookups int   // Confirm's own
		refused bool
	}{
		{"settled good", func(st *lookupCounter, tok token.Token, p *token.Pending) {
			p.Settle(st.MemStore.TokenByHash(context.Background(), tok.Hash))
		}, nil, 0, false},
		{"settled revoked", func(st *lookupCounter, tok token.Token, p *token.Pending) {
			st.RevokeToken(context.Background(), tok.ID, created.Add(time.Hour))
			p.Settle(st.MemStore.TokenByHash(context.Background(), tok.Hash))
		}, token.ErrRevoked, 0, true},
		{"settled unknown", func(_ *lookupCounter, _ token.Token, p *token.Pending) {
			p.Settle(token.Token{}, fmt.Errorf("store: %w", token.ErrUnknown))
		}, token.ErrUnknown, 0, true},
		{"settled as another token", func(st *lookupCounter, _ token.Token, p *token.Pending) {
			_, other := addNew(t, st, "eng", transcript.Person("bo", "Bo"))
			p.Settle(other, nil)
		}, token.ErrUnknown, 0, true},
		{"settled failed", func(_ *lookupCounter, _ token.Token, p *token.Pending) {
			p.Settle(token.Token{}, storeFailed)
		}, storeFailed, 0, false},
		{"settled twice: the first counts", func(st *lookupCounter, tok token.Token, p *token.Pending) {
			p.Settle(st.MemStore.TokenByHash(context.Background(), tok.Hash))
			p.Settle(token.Token{}, token.ErrUnknown)
		}, nil, 0, false},
		{"unsettled, good", func(*lookupCounter, token.Token, *token.Pending) {}, nil, 1, false},
		{"unsettled, revoked since", func(st *lookupCounter, tok token.Token, _ *token.Pending) {
			st.RevokeToken(context.Background(), tok.ID, created.Add(time.Hour))
		}, token.ErrRevoked, 1, true},
		{"unsettled, the store fails", func(st *lookupCounter, _ token.Token, _ *token.Pending) {
			st.fail = storeFailed
		}, storeFailed, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := &lookupCounter{MemStore: newMemStore()}
			c := token.NewCache(8)
			secret, tok := addNew(t, st, "eng", triage)
			c.Authenticate(t.Context(), st, "Bearer "+secret)
			_, p, err := c.Authenticate(t.Context(), st, "Bearer "+secret)
			if err != nil || p == nil {
				t.Fatalf("a remembered token: pending %v, %v", p, err)
			}
			if p.Settled() {
				t.Fatal("a new Pending is settled")
			}
			ctx := token.WithPending(t.Context(), p)
			if token.PendingOf(ctx) != p {
				t.Fatal("PendingOf does not return the unsettled Pending of its context")
			}
			tc.settle(st, tok, p)
			if p.Settled() && token.PendingOf(ctx) != nil {
				t.Error("PendingOf returns a settled Pending")
			}
			before := st.lookups
			err = p.Confirm(t.Context(), st)
			switch {
			case tc.want == nil && err != nil, tc.want != nil && !errors.Is(err, tc.want):
				t.Fatalf("Confirm: %v, want %v", err, tc.want)
			case errors.Is(err, token.ErrUnauthorized) != tc.refused:
				t.Fatalf("Confirm: %v, a refusal: %v, want %v", err, errors.Is(err, token.ErrUnauthorized), tc.refused)
			case st.lookups-before != tc.lookups:
				t.Fatalf("Confirm made %d lookups, want %d", st.lookups-before, tc.lookups)
			}
			st.fail = nil
			_, again, _ := c.Authenticate(t.Context(), st, "Bearer "+secret)
			if (again == nil) != tc.refused {
				t.Errorf("after Confirm's %v: the next request has a pending: %v, want %v", err, again != nil, !tc.refused)
			}
		})
	}
}

// TestCacheBounded: a Cache holds at most its size of tokens, and no token a failed lookup
// answered.
func TestCacheBounded(t *testing.T) {
	st := &lookupCounter{MemStore: newMemStore()}
	c := token.NewCache(3)
	var secrets []string
	for i := range 10 {
		secret, _ := addNew(t, st, "eng", transcript.Agent(fmt.Sprintf("a%d", i), ""))
		secrets = append(secrets, secret)
		c.Authenticate(t.Context(), st, "Bearer "+secret)
	}
	st.fail = errors.New("the database is down") // a token not held fails, and is not remembered
	pending := 0
	for _, secret := range secrets {
		if _, p, _ := c.Authenticate(t.Context(), st, "Bearer "+secret); p != nil {
			pending++
		}
	}
	if pending != 3 {
		t.Errorf("%d of 10 tokens came back from a Cache of 3, want 3", pending)
	}
}
