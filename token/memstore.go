package token

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// MemStore is a Store in memory: the reference implementation of Store's contract, for
// tests and examples (the stores of package sqlitestore and pgstore keep tokens for good).
// The zero MemStore is empty and ready to use; it is safe for concurrent use.
type MemStore struct {
	mu     sync.Mutex
	byHash map[[32]byte]Token
}

var _ Store = (*MemStore)(nil)

// AddToken implements Store.
func (s *MemStore) AddToken(ctx context.Context, t Token) error {
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
			return fmt.Errorf("token: MemStore: token %s: %w", t.ID, ErrExists)
		}
	}
	t.Created = Floor(t.Created)
	if t.IsRevoked() {
		t.Revoked = Floor(t.Revoked)
	}
	if s.byHash == nil {
		s.byHash = make(map[[32]byte]Token)
	}
	s.byHash[t.Hash] = t
	return nil
}

// TokenByHash implements Store.
func (s *MemStore) TokenByHash(ctx context.Context, hash [32]byte) (Token, error) {
	if err := ctx.Err(); err != nil {
		return Token{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.byHash[hash]
	if !ok {
		return Token{}, fmt.Errorf("token: MemStore: %w", ErrUnknown)
	}
	return t, nil
}

// Tokens implements Store.
func (s *MemStore) Tokens(ctx context.Context) ([]Token, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var all []Token
	for _, t := range s.byHash {
		all = append(all, t)
	}
	slices.SortFunc(all, func(a, b Token) int {
		return cmp.Or(a.Created.Compare(b.Created), cmp.Compare(a.ID, b.ID))
	})
	return all, nil
}

// RevokeToken implements Store.
func (s *MemStore) RevokeToken(ctx context.Context, id string, at time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !IsID(id) {
		return fmt.Errorf("token: MemStore: not a token id: %w", ErrUnknown)
	}
	if err := CheckRevocation(at); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for h, t := range s.byHash {
		if t.ID == id {
			if !t.IsRevoked() {
				t.Revoked = Floor(at)
				s.byHash[h] = t
			}
			return nil
		}
	}
	return fmt.Errorf("token: MemStore: token %q: %w", id, ErrUnknown)
}
