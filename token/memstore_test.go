package token_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/sharedesk/transcript/token"
)

// memStore is a token.Store in a map, for the tests and examples of this package.
type memStore struct {
	mu     sync.Mutex
	byHash map[[32]byte]token.Token
}

var _ token.Store = (*memStore)(nil)

func newMemStore() *memStore { return &memStore{byHash: make(map[[32]byte]token.Token)} }

func (s *memStore) AddToken(ctx context.Context, t token.Token) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := t.Validate(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, u := range s.byHash {
		if u.ID == t.ID || u.Hash == t.Hash {
			return fmt.Errorf("memstore: token %s: %w", t.ID, token.ErrExists)
		}
	}
	t.Created = token.Floor(t.Created)
	if t.IsRevoked() {
		t.Revoked = token.Floor(t.Revoked)
	}
	s.byHash[t.Hash] = t
	return nil
}

func (s *memStore) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	if err := ctx.Err(); err != nil {
		return token.Token{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byHash[hash]
	if !ok {
		return token.Token{}, fmt.Errorf("memstore: %w", token.ErrUnknown)
	}
	return t, nil
}

func (s *memStore) Tokens(ctx context.Context) ([]token.Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []token.Token
	for _, t := range s.byHash {
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b token.Token) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
	return all, nil
}

func (s *memStore) RevokeToken(ctx context.Context, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !token.IsID(id) {
		return fmt.Errorf("memstore: not a token id: %w", token.ErrUnknown)
	}
	if err := token.CheckRevocation(at); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, t := range s.byHash {
		if t.ID == id {
			if !t.IsRevoked() {
				t.Revoked = token.Floor(at)
				s.byHash[h] = t
			}
			return nil
		}
	}
	return fmt.Errorf("memstore: token %q: %w", id, token.ErrUnknown)
}

// lookupFunc is a token.Store whose TokenByHash is a function, for stores that misbehave.
type lookupFunc func(ctx context.Context, hash [32]byte) (token.Token, error)

func (f lookupFunc) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	return f(ctx, hash)
}
func (lookupFunc) AddToken(context.Context, token.Token) error          { panic("not used") }
func (lookupFunc) Tokens(context.Context) ([]token.Token, error)        { panic("not used") }
func (lookupFunc) RevokeToken(context.Context, string, time.Time) error { panic("not used") }
