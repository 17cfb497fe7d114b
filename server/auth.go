package server

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// identityKey is the context key under which authenticate puts the request's token.
type identityKey struct{}

// identity returns the token authenticate found for the request of ctx. Every /v1/
// handler reads who it serves from here and from nowhere else.
func identity(ctx context.Context) token.Token {
	t, _ := ctx.Value(identityKey{}).(token.Token)
	return t
}

// authenticate is the middleware of every /v1/ operation, and the one place that decides
// who a request is: token.Authenticate on its Authorization header. It answers
//
//   - 401, with WWW-Authenticate: Bearer, for a missing, malformed, unknown or revoked
//     token, and for two Authorization headers; all alike;
//   - 500 when the store cannot say (a failed lookup is the server's fault, not the
//     request's);
//   - 429, with Retry-After, past the token's rate limit;
//   - 404 for a path naming a desk other than the token's, exactly as for a desk that does
//     not exist;
//
// and otherwise puts the token in the request's context (identity) and in its log line.
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	rec := recordOf(ctx.Context())
	var headers []string
	ctx.EachHeader(func(name, value string) {
		if strings.EqualFold(name, "Authorization") {
			headers = append(headers, value)
		}
	})
	var (
		t   token.Token
		err error
	)
	if len(headers) > 1 {
		err = token.ErrMalformed
	} else {
		t, err = token.Authenticate(ctx.Context(), s.st, strings.Join(headers, ""))
	}
	switch {
	case errors.Is(err, token.ErrUnauthorized):
		rec.refusal = refusalName(err)
		challenge := `Bearer realm="transcript"`
		if !errors.Is(err, token.ErrMissing) {
			challenge += `, error="invalid_token"`
		}
		writeProblemCtx(ctx, kindUnauthorized.problem("a valid bearer token is required"), "WWW-Authenticate", challenge)
		return
	case err != nil:
		rec.err = err
		writeProblemCtx(ctx, kindInternal.problem(problemDetail(500)), "")
		return
	}
	rec.tokenID, rec.desk = t.ID, t.Desk
	if wait, ok := s.limits.allow(t.ID); !ok {
		s.metrics.rateLimited.Add(1)
		writeProblemCtx(ctx, kindRateLimited.problem("the token's rate limit is exceeded"), "Retry-After", retryAfter(wait))
		return
	}
	if desk := ctx.Param("desk"); strings.Contains(ctx.Operation().Path, "{desk}") && desk != t.Desk {
		writeProblemCtx(ctx, errNoDesk, "")
		return
	}
	next(huma.WithValue(ctx, identityKey{}, t))
}

// The 404s of things a token may not see, each identical to the one for a thing that does
// not exist.
var (
	errNoDesk   = kindNotFound.problem("no such desk")
	errNoParent = kindNotFound.problem("no such parent")
	errNoThread = kindNotFound.problem("no such thread")
)

// refusalName names why Authenticate refused, for the log line: a fixed word.
func refusalName(err error) string {
	switch {
	case errors.Is(err, token.ErrMissing):
		return "missing"
	case errors.Is(err, token.ErrMalformed):
		return "malformed"
	case errors.Is(err, token.ErrUnknown):
		return "unknown"
	case errors.Is(err, token.ErrRevoked):
		return "revoked"
	}
	return "unauthorized"
}

// viewer returns whose view a read of ctx's request is: the token's participant, or, for an
// operator token, the participant as names (transcript.ParseAuthor's syntax), who then
// sees exactly what that participant sees. as from any other token is 403; an as that is
// no participant is 400.
func viewer(ctx context.Context, as string) (transcript.Author, error) {
	t := identity(ctx)
	if as == "" {
		return t.Participant, nil
	}
	if t.Participant.Kind != transcript.KindOperator {
		return transcript.Author{}, kindForbidden.problem("only an operator token may read as another participant (as=)")
	}
	a, err := transcript.ParseAuthor(as)
	if err != nil {
		return transcript.Author{}, kindInvalidRequest.problem("as is not a participant: operator, person:ID, agent:ID or system:KIND, each with an optional :LABEL")
	}
	return a, nil
}

// writeProblemCtx writes p from a huma middleware, with one header (name "" for none).
func writeProblemCtx(ctx huma.Context, p *huma.ErrorModel, name string, value ...string) {
	if name != "" {
		for _, v := range value {
			ctx.SetHeader(name, v)
		}
	}
	body, _ := json.Marshal(p) // an ErrorModel of strings always marshals
	ctx.SetHeader("Content-Type", "application/problem+json")
	ctx.SetStatus(p.Status)
	ctx.BodyWriter().Write(append(body, '\n'))
}

// retryAfter is a Retry-After value: whole seconds, rounded up, at least 1.
func retryAfter(d time.Duration) string {
	secs := math.Ceil(d.Seconds())
	return strconv.Itoa(int(min(max(secs, 1), maxStreamRetryAfterSecond)))
}
