// Package op is what the service shares with the internal packages that hold some of its
// operations (page, stream): the store they read, who a request is, and the service's ways
// of describing an operation and of answering an error.
package op

import (
	"context"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// Store is what those operations read of the service's store (server.Store is one): a
// desk's log and the tokens.
type Store interface {
	transcript.DeskLogs
	token.Store
}

// identityKey is the context key under which the service puts the request's token.
type identityKey struct{}

// WithIdentity returns ctx carrying t, the token the service authenticated the request with.
func WithIdentity(ctx context.Context, t token.Token) context.Context {
	return context.WithValue(ctx, identityKey{}, t)
}

// Identity returns the token the service authenticated ctx's request with (WithIdentity).
// Every /v1/ handler reads who it serves from here and from nowhere else.
func Identity(ctx context.Context) token.Token {
	t, _ := ctx.Value(identityKey{}).(token.Token)
	return t
}

// Service is what an operation takes from the service that registers it.
type Service struct {
	Store Store
	// Operation describes an operation as the service describes every one: its errors are
	// the statuses it answers with besides 200, to which it adds those every operation
	// (with a token, when withToken) answers with, and the body's limits.
	Operation func(id, method, path, summary string, withToken bool, errs ...int) huma.Operation
	// Internal records err for the request's log line and returns the problem the client
	// gets for it, which says nothing of err.
	Internal func(ctx context.Context, err error) error
	// Invalid and Forbidden are the service's 400 (invalid-request) and 403 (forbidden)
	// problems with detail, which must hold nothing the client may not see.
	Invalid, Forbidden func(detail string) error
}

// OperatorOnly is the 403 of the routes that tell of every row (the desk's rows, live or
// not, and its participants, or a digest folded from them) for any token but the
// operator's, who alone reads every row; what names what was asked, as the verb and its
// object ("read the desk's rows", "fold digests").
func (s Service) OperatorOnly(ctx context.Context, what string) error {
	if Identity(ctx).Participant.Kind != transcript.KindOperator {
		return s.Forbidden("only an operator token may " + what)
	}
	return nil
}
