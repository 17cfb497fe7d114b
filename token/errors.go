package token

import (
	"errors"
	"fmt"
)

// ErrUnauthorized is matched by every error with which Authenticate refuses a request: the
// request did not name a token the store holds and has not revoked. ErrMissing,
// ErrMalformed, ErrUnknown and ErrRevoked say which; a server answers all four alike (401)
// and may log which one it was. An error from the store itself (a database that is down, a
// ctx that is done) does not match it: the server cannot tell who the request is, and that
// is its own failure, not the request's.
var ErrUnauthorized = errors.New("token: unauthorized")

// Authenticate's reasons for refusing a request. Each is an error of its own, for
// errors.Is, and also matches ErrUnauthorized. Their messages are fixed: none quotes the
// header, so none can leak the secret in it into a log.
var (
	// ErrMissing: the request carries no Authorization header, or an empty one.
	ErrMissing error = &refusal{"token: no bearer token"}
	// ErrMalformed: the Authorization header is not "Bearer" and one token secret. The
	// error Authenticate returns wraps it with a fixed reason.
	ErrMalformed error = &refusal{"token: malformed Authorization header"}
	// ErrUnknown: no token has the secret's hash. Store.TokenByHash and Store.RevokeToken
	// return it (wrapped or not) for a token they do not hold.
	ErrUnknown error = &refusal{"token: unknown token"}
	// ErrRevoked: the token was revoked (Store.RevokeToken).
	ErrRevoked error = &refusal{"token: revoked token"}
)

// ErrNotBearer is the reason of ErrMalformed for a header whose scheme is not Bearer: a
// bare secret ("Authorization: trs_...") among them, which a server may answer by saying
// how the header is written.
var ErrNotBearer = fmt.Errorf("%w: the scheme is not Bearer", ErrMalformed)

// The other reasons of ErrMalformed: predeclared, so that no error Authenticate returns
// holds a byte of its input.
var (
	errNoCredential   = fmt.Errorf("%w: no credential after Bearer", ErrMalformed)
	errTwoCredentials = fmt.Errorf("%w: more than one credential after Bearer", ErrMalformed)
	errNotSecret      = fmt.Errorf("%w: the credential is not a token secret (%s and %d base64url characters)", ErrMalformed, SecretPrefix, secretTextLen)
)

// ErrInvalid is matched by the error of Token.Validate, and so of New and of a Store's
// AddToken, for a token that cannot be stored, and by a Store's RevokeToken for a time it
// cannot keep.
var ErrInvalid = errors.New("token: invalid token")

// ErrExists is matched by the error of a Store's AddToken for a token whose ID or Hash the
// store holds already.
var ErrExists = errors.New("token: token exists already")

// refusal is the type of Authenticate's sentinels: each one is itself, and also
// ErrUnauthorized. A type with an Is method rather than a wrapped ErrUnauthorized keeps its
// message plain where it is not about a request: a Store's RevokeToken of an unknown id
// says "unknown token", not "unauthorized".
type refusal struct{ msg string }

func (e *refusal) Error() string { return e.msg }

// Is reports whether target is ErrUnauthorized.
func (e *refusal) Is(target error) bool { return target == ErrUnauthorized }

// ErrDeskHasTokens is matched by the error of a store's DeleteDesk asked to keep a desk's
// tokens while the store holds some: a token outliving its desk would be a token for the
// next desk of that name.
var ErrDeskHasTokens = errors.New("token: the desk has tokens")
