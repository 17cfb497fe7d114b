package token_test

import (
	"context"
	"time"

	"github.com/sharedesk/transcript/token"
)

func newMemStore() *token.MemStore { return new(token.MemStore) }

// lookupFunc is a token.Store whose TokenByHash is a function, for stores that misbehave.
type lookupFunc func(ctx context.Context, hash [32]byte) (token.Token, error)

func (f lookupFunc) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	return f(ctx, hash)
}
func (lookupFunc) AddToken(context.Context, token.Token) error          { panic("not used") }
func (lookupFunc) Tokens(context.Context) ([]token.Token, error)        { panic("not used") }
func (lookupFunc) RevokeToken(context.Context, string, time.Time) error { panic("not used") }
