package token

import (
	"context"
	"sync"
)

// A Cache remembers the tokens Authenticate accepted, by hash, so that a later request with
// the same header can be served while its token is checked again (Pending) rather than
// before. It holds no secret: hashes, and what a Token holds. It holds at most its size of
// tokens, and forgets one that a check finds no longer good. A Cache is safe for
// concurrent use.
type Cache struct {
	mu     sync.Mutex
	size   int
	tokens map[[32]byte]Token
}

// NewCache returns an empty Cache of at most size tokens (at least 1).
func NewCache(size int) *Cache {
	return &Cache{size: max(size, 1), tokens: make(map[[32]byte]Token)}
}

// Authenticate is the package's Authenticate, for a request whose answer can wait on a
// Pending: when c holds the token of authorization's secret, it returns that token and a
// Pending for it without reading st. Otherwise it returns Authenticate's answer and a nil
// Pending, and remembers the token when it is good.
func (c *Cache) Authenticate(ctx context.Context, st Store, authorization string) (Token, *Pending, error) {
	secret, err := parseAuthorization(authorization)
	if err != nil {
		return Token{}, nil, err
	}
	hash := Hash(secret)
	c.mu.Lock()
	t, ok := c.tokens[hash]
	c.mu.Unlock()
	if ok {
		return t, &Pending{t: t, cache: c}, nil
	}
	t, err = authenticateHash(ctx, st, hash)
	if err == nil {
		c.remember(t)
	}
	return t, nil, err
}

// remember keeps t, dropping another token when c is full.
func (c *Cache) remember(t Token) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.tokens) >= c.size {
		for h := range c.tokens {
			delete(c.tokens, h)
			break
		}
	}
	c.tokens[t.Hash] = t
}

// forget drops the token of hash.
func (c *Cache) forget(hash [32]byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.tokens, hash)
}
