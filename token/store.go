package token

import (
	"context"
	"time"
)

// Store keeps tokens: their hashes, never their secrets. sqlitestore.Store implements it.
// A Store is safe for concurrent use. Every method honours ctx: once it is done, a method
// returns an error matching ctx.Err(), and a write it had not committed is not made.
//
// Times are kept to the microsecond, rounded down (Floor), and returned in UTC; the zero
// Revoked reads back as the zero Time. A desk name is kept byte for byte: a token for "eng"
// is never a token for "Eng" or "eng ". A token needs no desk row: it may be made for a desk
// that holds no message yet.
type Store interface {
	// AddToken stores t, which must pass t.Validate (else an error matching ErrInvalid,
	// which quotes no ID that is not of the form of one: IsID), as it is, Revoked
	// included. A token whose ID or Hash the store holds already is an
	// error matching ErrExists, and the stored one is left as it was. Nothing is stored
	// when AddToken fails.
	AddToken(ctx context.Context, t Token) error

	// TokenByHash returns the token whose Hash is hash, revoked or not (Authenticate
	// decides what a revoked token is worth), or an error matching ErrUnknown when the
	// store holds none. It finds the token by an index on the hash, never by a scan, and
	// takes no account of any other field.
	TokenByHash(ctx context.Context, hash [32]byte) (Token, error)

	// Tokens returns every token the store holds, revoked ones included, ordered by
	// Created, then by ID (byte order); none is an empty slice (or nil). The slice is new,
	// and the caller's.
	Tokens(ctx context.Context) ([]Token, error)

	// RevokeToken sets the Revoked time of the token named id to at, rounded down to the
	// microsecond. A token revoked already keeps its first Revoked time, and RevokeToken
	// returns nil: revoking is idempotent. An id the store does not hold is an error
	// matching ErrUnknown, and so is an id that is not of the form of one (IsID), which
	// the error does not quote: it may be a secret given by mistake. An at that
	// CheckRevocation refuses (the zero Time among them) is an error matching ErrInvalid,
	// and nothing is written.
	RevokeToken(ctx context.Context, id string, at time.Time) error
}
