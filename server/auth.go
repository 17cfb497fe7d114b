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
	"github.com/danielgtaylor/huma/v2/adapters/humago"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/op"
	"github.com/sharedesk/transcript/server/internal/page"
	"github.com/sharedesk/transcript/token"
)

// identity returns the token authenticate found for the request of ctx (op.Identity). Every
// /v1/ handler reads who it serves from there and from nowhere else.
func identity(ctx context.Context) token.Token { return op.Identity(ctx) }

// withRequester returns ctx carrying who its request is: the token, and the session that
// authenticated it (nil for a bearer token).
func withRequester(ctx context.Context, t token.Token, sess *page.Session) context.Context {
	return page.WithSession(op.WithIdentity(ctx, t), sess)
}

// authenticate is the middleware of every /v1/ operation: admit decides who the request
// is, and a path naming a desk other than the token's is 404 (noSuchDesk), the same
// answer whether that desk exists or not. It puts the token (identity) and the session, if any, in the request's
// context.
//
// On a route whose answer may wait on its token's check (checkLater), a token the server
// accepted before is admitted without reading the store; the request's store reads check
// it, or a lookup does, and the answer is written only once it has passed (confirmFirst).
func (s *Server) authenticate(ctx huma.Context, next func(huma.Context)) {
	r, _ := humago.Unwrap(ctx)
	t, sess, pending, no := s.admit(r, s.checkLater(ctx.Operation()))
	if no != nil {
		writeProblemCtx(ctx, no.problem, no.header, no.value)
		return
	}
	if desk := ctx.Param("desk"); strings.Contains(ctx.Operation().Path, "{desk}") && desk != t.Desk {
		no := s.confirm(r, pending) // a token no longer good is told so, not its desk
		if no == nil {
			no = &rejection{problem: noSuchDesk(t)}
		}
		writeProblemCtx(ctx, no.problem, no.header, no.value)
		return
	}
	rctx := withRequester(ctx.Context(), t, sess)
	if pending != nil {
		ctx, rctx = &confirmFirst{humaContext: ctx, s: s, r: r, p: pending}, token.WithPending(rctx, pending)
	}
	next(huma.WithContext(ctx, rctx))
}

// authenticateHTTP is authenticate for a route that is a plain http.Handler (/mcp, whose
// desk is the token's): the same admit, the same answers.
func (s *Server) authenticateHTTP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t, sess, _, no := s.admit(r, false)
		if no != nil {
			var hdr http.Header
			if no.header != "" {
				hdr = http.Header{no.header: {no.value}}
			}
			writeProblem(w, no.problem, hdr)
			return
		}
		ctx := withRequester(r.Context(), t, sess)
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// rejection is admit's answer to a request it refuses: the problem, and one header to set
// (none when header is "").
type rejection struct {
	problem       *huma.ErrorModel
	header, value string
}

// admit asks identify, the one place that decides who a request is, and refuses
//
//   - with 401, and WWW-Authenticate: Bearer, a missing, malformed, unknown or revoked
//     token, two Authorization headers, and a session cookie that is unknown, expired or
//     signed out; all alike, but that a header without the Bearer scheme (a bare token)
//     is told how the header is written (never quoting it);
//   - with 403 a request that the session cookie authenticates, is no GET or HEAD, and
//     lacks the session's CSRF token (CSRFHeader);
//   - with 500 when the store cannot say (a failed lookup is the server's fault, not the
//     request's);
//   - with 429, and Retry-After, past the token's rate limit, and in place of 401 past
//     the client address's limit on failed authentications (failLimits);
//
// and otherwise returns the token and the session, if any, and puts the token in the
// request's log line. With later, a token the server accepted before may come with its
// check still pending (identify).
func (s *Server) admit(r *http.Request, later bool) (token.Token, *page.Session, *token.Pending, *rejection) {
	t, sess, pending, refusal, err := s.identify(r, later)
	if no := s.refuse(r, refusal, err); no != nil {
		return token.Token{}, nil, nil, no
	}
	rec := recordOf(r.Context())
	rec.tokenID, rec.desk = t.ID, t.Desk
	if wait, ok := s.limits.allow(t.ID); !ok {
		if no := s.confirm(r, pending); no != nil { // a token no longer good is told so, not to wait
			return token.Token{}, nil, nil, no
		}
		s.metrics.rateLimited.Add(1)
		return token.Token{}, nil, nil, &rejection{kindRateLimited.problem("the token's rate limit is exceeded"), "Retry-After", retryAfter(wait)}
	}
	return t, sess, pending, nil
}

// refuse is admit's answer to identify's refusal (its name; "" for none) or failure (err),
// or nil for neither; it puts either in the request's log line.
func (s *Server) refuse(r *http.Request, refusal string, err error) *rejection {
	rec := recordOf(r.Context())
	switch {
	case refusal == refusalCSRF:
		rec.refusal = refusal
		return &rejection{problem: kindForbidden.problem("a request with the session cookie must carry the session's CSRF token in " + CSRFHeader)}
	case refusal != "":
		rec.refusal = refusal
		challenge := `Bearer realm="transcript"`
		if refusal != "missing" {
			challenge += `, error="invalid_token"`
		}
		if wait, ok := s.fails.fail(clientAddr(r)); !ok {
			s.metrics.rateLimited.Add(1)
			return &rejection{kindRateLimited.problem("too many failed authentications from this address"), "Retry-After", retryAfter(wait)}
		}
		detail := "a valid bearer token, or a signed-in session, is required"
		if refusal == refusalNotBearer {
			detail = `the Authorization header needs the Bearer scheme: "Authorization: Bearer TOKEN"`
		}
		return &rejection{kindUnauthorized.problem(detail), "WWW-Authenticate", challenge}
	case err != nil:
		rec.err = err
		return &rejection{problem: kindInternal.problem(problemDetail(500))}
	}
	return nil
}

// refusalSession and refusalCSRF are identify's refusals of a session cookie: one that
// names no live session (401), and a request it authenticates that lacks the CSRF token (403).
const (
	refusalSession = "session"
	refusalCSRF    = "csrf"
)

// identify decides who r is: the one place that does, for the API and the page alike.
//
// A request with an Authorization header is the token token.Authenticate finds for it (two
// headers are malformed). One without is the session its SessionCookie names, if any:
// that session's token, which token.Authenticate checks again, so that the cookie and the
// bearer token end in the same token value and a revoked token's session ends with it. A
// request the cookie authenticates that is no GET or HEAD must carry the session's CSRF
// token. With neither header nor cookie the request is token.ErrMissing's.
//
// With later, when the server keeps the tokens it accepted (Server.tokens), a header whose
// token it accepted before is that token, with its check pending (token.Cache).
//
// A refusal is returned as its name for the log line (refusalName's, refusalSession or
// refusalCSRF) with a nil error; err is the store's failure.
func (s *Server) identify(r *http.Request, later bool) (t token.Token, sess *page.Session, pending *token.Pending, refusal string, err error) {
	ctx := r.Context()
	headers := r.Header.Values("Authorization")
	switch {
	case len(headers) > 1:
		err = token.ErrMalformed
	case len(headers) == 1 && s.tokens != nil:
		t, pending, err = s.tokens.Authenticate(ctx, s.st, headers[0])
		if !later && pending != nil {
			err, pending = pending.Confirm(ctx, s.st), nil
		}
	case len(headers) == 1:
		t, err = token.Authenticate(ctx, s.st, headers[0])
	default:
		c, cerr := r.Cookie(SessionCookie)
		if cerr != nil {
			t, err = token.Authenticate(ctx, s.st, "")
			break
		}
		var ok bool
		if sess, ok = s.sess.Lookup(c.Value); !ok {
			return token.Token{}, nil, nil, refusalSession, nil
		}
		t, err = token.Authenticate(ctx, s.st, sess.Authorization)
		if errors.Is(err, token.ErrUnauthorized) {
			s.sess.End(sess) // the token was revoked since the sign-in
		}
		if err == nil && !page.SafeMethod(r.Method) && !sess.CheckCSRF(r.Header.Get(CSRFHeader)) {
			return token.Token{}, nil, nil, refusalCSRF, nil
		}
	}
	if errors.Is(err, token.ErrUnauthorized) {
		return token.Token{}, nil, nil, refusalName(err), nil
	}
	if err != nil {
		return token.Token{}, nil, nil, "", err
	}
	return t, sess, pending, "", nil
}

// noSuchDesk is the 404 of a path naming a desk other than t's: it names t's own desk,
// which its holder knows, and nothing of the desk the path names, so that it is the same
// whether that desk exists or not.
func noSuchDesk(t token.Token) *huma.ErrorModel {
	return kindNotFound.problem("no such desk: this token is for desk " + strconv.Quote(t.Desk))
}

// The 404s of things a token may not see, each identical to the one for a thing that does
// not exist.
var (
	errNoParent = kindNotFound.problem("no such parent")
	errNoThread = kindNotFound.problem("no such thread")
)

// refusalNotBearer is refusalName's word for a header whose scheme is not Bearer
// (token.ErrNotBearer), one kind of malformed header.
const refusalNotBearer = "not-bearer"

// refusalName names why Authenticate refused, for the log line: a fixed word.
func refusalName(err error) string {
	switch {
	case errors.Is(err, token.ErrMissing):
		return "missing"
	case errors.Is(err, token.ErrNotBearer):
		return refusalNotBearer
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
