package token_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sharedesk/transcript/token"
)

// TestRecheck: a token Authenticate accepted is still good until it is revoked or removed;
// a store that cannot say is an error that is no verdict of good; a store answering with
// another token does not vouch for this one.
func TestRecheck(t *testing.T) {
	st := newMemStore()
	secret, tok, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToken(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	accepted, err := token.Authenticate(t.Context(), st, "Bearer "+secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := token.Recheck(t.Context(), st, accepted); err != nil {
		t.Errorf("Recheck of a good token = %v, want nil", err)
	}
	if err := st.RevokeToken(t.Context(), tok.ID, created.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := token.Recheck(t.Context(), st, accepted); !errors.Is(err, token.ErrRevoked) {
		t.Errorf("Recheck of a revoked token = %v, want ErrRevoked", err)
	}
	if err := token.Recheck(t.Context(), newMemStore(), accepted); !errors.Is(err, token.ErrUnknown) {
		t.Errorf("Recheck of a removed token = %v, want ErrUnknown", err)
	}
	down := errors.New("database is down")
	failing := lookupFunc(func(context.Context, [32]byte) (token.Token, error) { return token.Token{}, down })
	if err := token.Recheck(t.Context(), failing, accepted); !errors.Is(err, down) || errors.Is(err, token.ErrUnauthorized) {
		t.Errorf("Recheck over a failing store = %v, want the store's error", err)
	}
	_, other, err := token.New("eng", triage, created)
	if err != nil {
		t.Fatal(err)
	}
	sloppy := lookupFunc(func(context.Context, [32]byte) (token.Token, error) { return other, nil })
	if err := token.Recheck(t.Context(), sloppy, accepted); !errors.Is(err, token.ErrUnknown) {
		t.Errorf("Recheck over a store answering with another token = %v, want ErrUnknown", err)
	}
	sameID := other
	sameID.ID = accepted.ID
	if err := token.StillGood(accepted, sameID); !errors.Is(err, token.ErrUnknown) {
		t.Errorf("StillGood of a token with its ID but another hash = %v, want ErrUnknown", err)
	}
}
