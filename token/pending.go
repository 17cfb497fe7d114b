package token

import (
	"context"
	"errors"
	"fmt"
	"sync"
)

// A Pending is a request's token whose check against the store is still to be made: a token
// Authenticate accepted for an earlier request, which a Cache gave back without reading the
// store. The request may be served meanwhile, but its answer waits on Confirm.
//
// A store read made under a context carrying the Pending (WithPending) may settle it: a
// Settler checks the token in the read's own statements, which read nothing of the desk
// for a token that is not good, so that a read that settles the check saves its round
// trip, and a revoked token's request does no work that depends on what the desk holds.
type Pending struct {
	t     Token
	cache *Cache // forgets t when Confirm finds it no longer good

	mu      sync.Mutex
	settled bool
	now     Token // what a store read found under t's hash when it settled p
	err     error // or why it could not say
}

// Token returns the token p is for, as Authenticate accepted it before.
func (p *Pending) Token() Token { return p.t }

// Hash returns the hash a store looks p's token up by.
func (p *Pending) Hash() [32]byte { return p.t.Hash }

// Settled reports whether a store read has settled p: a store that would read the token
// with its read asks first, and does not when it has.
func (p *Pending) Settled() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.settled
}

// Settle records what a store read of the token under p's hash found: now, the token the
// store holds under it (at least its ID and Hash, and Revoked when it is revoked), or err,
// which matches ErrUnknown when it holds none. Only the first call counts.
func (p *Pending) Settle(now Token, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.settled {
		p.settled, p.now, p.err = true, now, err
	}
}

// Confirm reports whether p's token is still good, as Recheck does: nil; ErrRevoked or
// ErrUnknown (both ErrUnauthorized), after which the Cache that gave p no longer holds the
// token; or the store's error, wrapped, when it cannot say. It takes what a read settled,
// and reads the token from st only when no read did.
func (p *Pending) Confirm(ctx context.Context, st Store) error {
	p.mu.Lock()
	settled, now, err := p.settled, p.now, p.err
	p.mu.Unlock()
	switch {
	case !settled:
		err = Recheck(ctx, st, p.t)
	case errors.Is(err, ErrUnknown):
		err = ErrUnknown
	case err != nil:
		err = fmt.Errorf("token: checking the token again: %w", err)
	default:
		err = StillGood(p.t, now)
	}
	if errors.Is(err, ErrUnauthorized) && p.cache != nil {
		p.cache.forget(p.t.Hash)
	}
	return err
}

// A Settler is a Store whose reads check a Pending that their context carries, when
// SettlesPending reports true: each statement of a read under the context reads nothing of
// the desk unless it finds the token good, and a read that shows its statements found it
// good settles the Pending as good. A read that found it not good, or cannot tell (it read
// no row), leaves the Pending to Confirm. A store may take a token found good by a
// statement as good for the statements of the read before it: a revocation is never
// undone, and a token removed never comes back (its hash is of a random secret).
type Settler interface {
	Store
	SettlesPending() bool
}

type pendingKey struct{}

// WithPending returns ctx carrying p, for a Settler's reads under it.
func WithPending(ctx context.Context, p *Pending) context.Context {
	return context.WithValue(ctx, pendingKey{}, p)
}

// PendingOf returns the Pending ctx carries that no read has settled yet, or nil.
func PendingOf(ctx context.Context) *Pending {
	p, _ := ctx.Value(pendingKey{}).(*Pending)
	if p == nil || p.Settled() {
		return nil
	}
	return p
}
