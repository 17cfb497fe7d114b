package token

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
)

// Recheck reports whether t, a token Authenticate accepted for a request that is still
// being served (a live event stream), is still good: nil when st holds it, unrevoked;
// ErrRevoked when it was revoked since; ErrUnknown when st no longer holds it. Any other
// error is the store's, wrapped, and the caller must take t as no longer good: it cannot
// tell. No error holds anything of t but what the store saw, its hash.
func Recheck(ctx context.Context, st Store, t Token) error {
	now, err := st.TokenByHash(ctx, t.Hash)
	switch {
	case errors.Is(err, ErrUnknown):
		return ErrUnknown
	case err != nil:
		return fmt.Errorf("token: checking the token again: %w", err)
	}
	return StillGood(t, now)
}

// StillGood is Recheck's rule, for a caller that read the store's tokens itself (a tail
// that reads every token of its desk once for all the streams it serves): t, which
// Authenticate accepted, is still good when now, the token the store holds under t's
// hash, is t (the same ID and hash, compared in constant time) and is not revoked. It
// returns nil, ErrUnknown or ErrRevoked.
func StillGood(t, now Token) error {
	switch {
	case now.ID != t.ID || subtle.ConstantTimeCompare(now.Hash[:], t.Hash[:]) != 1:
		return ErrUnknown
	case now.IsRevoked():
		return ErrRevoked
	}
	return nil
}
