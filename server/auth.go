package server

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
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

// authenticate is the middleware of every /v1/ operation: admit decides who the request
// is, and a path naming a desk other than the token's is 404, exactly as for a desk that
// does not exist. It puts the token in the request's context (identity).
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	var headers []string
	ctx.EachHeader(func(name, value string) {
		if strings.EqualFold(name, "Authorization") {
			headers = append(headers, value)
		}
	})
	t, no := s.admit(ctx.Context(), headers)
	if no != nil {
		writeProblemCtx(ctx, no.problem, no.header, no.value)
		return
	}
	if desk := ctx.Param("desk"); strings.Contains(ctx.Operation().Path, "{desk}") && desk != t.Desk {
		writeProblemCtx(ctx, errNoDesk, "")
		return
	}
	next(huma.WithValue(ctx, identityKey{}, t))
}

// authenticateHTTP is authenticate for a route that is a plain http.Handler (/mcp, whose
// desk is the token's): the same admit, the same answers.
func (s *Server) authenticateHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, no := s.admit(r.Context(), r.Header.Values("Authorization"))
		if no != nil {
			var hdr http.Header
			if no.header != "" {
				hdr = http.Header{no.header: {no.value}}
			}
			writeProblem(w, no.problem, hdr)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), identityKey{}, t)))
	})
}

// refusal is admit's answer to a request it refuses: the problem, and one header to set
// (none when header is "").
type refusal struct {
	problem       *huma.ErrorModel
	header, value string
}

// admit is the one place that decides who a request is: token.Authenticate on its
// Authorization headers. It refuses
//
//   - with 401, and WWW-Authenticate: Bearer, a missing, malformed, unknown or revoked
//     token, and two Authorization headers; all alike;
//   - with 500 when the store cannot say (a failed lookup is the server's fault, not the
//     request's);
//   - with 429, and Retry-After, past the token's rate limit;
//
// and otherwise returns the token, which it also puts in the request's log line.
func (s *Server) admit(ctx context.Context, authorization []string) (token.Token, *refusal) {
	rec := recordOf(ctx)
	var (
		t   token.Token
		err error
	)
	if len(authorization) > 1 {
		err = token.ErrMalformed
	} else {
		t, err = token.Authenticate(ctx, s.st, strings.Join(authorization, ""))
	}
	switch {
	case errors.Is(err, token.ErrUnauthorized):
		rec.refusal = refusalName(err)
		challenge := `Bearer realm="transcript"`
		if !errors.Is(err, token.ErrMissing) {
			challenge += `, error="invalid_token"`
		}
		return token.Token{}, &refusal{kindUnauthorized.problem("a valid bearer token is required"), "WWW-Authenticate", challenge}
	case err != nil:
		rec.err = err
		return token.Token{}, &refusal{problem: kindInternal.problem(problemDetail(500))}
	}
	rec.tokenID, rec.desk = t.ID, t.Desk
	if wait, ok := s.limits.allow(t.ID); !ok {
		s.metrics.rateLimited.Add(1)
		return token.Token{}, &refusal{kindRateLimited.problem("the token's rate limit is exceeded"), "Retry-After", retryAfter(wait)}
	}
	return t, nil
}

// revoked reports whether the token t, which authenticate accepted for a request that is
// still being served (an event stream), has been revoked or removed since: a stream checks
// at every heartbeat, so that a revoked token stops receiving within one. A store that
// cannot say is taken to mean no: the stream goes on until it can.
func (s *Server) revoked(ctx context.Context, t token.Token) bool {
	now, err := s.st.TokenByHash(ctx, t.Hash)
	switch {
	case errors.Is(err, token.ErrUnknown):
		return true
	case err != nil:
		return false
	}
	return now.IsRevoked()
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
