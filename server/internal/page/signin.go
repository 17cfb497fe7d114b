package page

import (
	"context"
	"net/http"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/op"
)

// SessionInfo is what a sign-in answers: whom the session is for, and the CSRF token the
// page sends in CSRFHeader with every request that is no GET or HEAD.
type SessionInfo struct {
	Desk    string            `json:"desk" doc:"The desk of the token the session was made from."`
	As      transcript.Author `json:"as" doc:"The participant: the operator."`
	CSRF    string            `json:"csrf" doc:"The session's CSRF token, for the X-CSRF-Token header."`
	Expires time.Time         `json:"expires" doc:"When the session ends."`
}

type signInInput struct {
	// Authorization is the header the service has authenticated already: the session keeps it,
	// to check it again on every request the cookie makes.
	Authorization string `header:"Authorization" hidden:"true"`
	tls           bool
}

// Resolve notes whether the sign-in came over TLS: the cookie is Secure then.
func (in *signInInput) Resolve(ctx huma.Context) []error {
	in.tls = ctx.TLS() != nil
	return nil
}

type signInOutput struct {
	SetCookie    http.Cookie `header:"Set-Cookie"`
	CacheControl string      `header:"Cache-Control"`
	Body         SessionInfo
}

func (a *API) signInOperation() huma.Operation {
	op := a.Operation("signIn", http.MethodPost, "/v1/session",
		"Sign the inspector page in: an operator token for a session cookie", true,
		http.StatusForbidden)
	op.DefaultStatus = http.StatusCreated
	op.Description = "With `Authorization: Bearer` and an operator token, answers 201, a session cookie " +
		"(" + SessionCookie + ": HttpOnly, SameSite=Strict, Path=/, Secure over TLS or behind a TLS proxy with --secure-cookie) and the session's CSRF token. " +
		"Requests with the cookie and no Authorization header are then the token's, until the session expires, " +
		"is signed out, or the token is revoked; those that are no GET or HEAD carry the CSRF token in " + CSRFHeader + ". " +
		"Any other participant's token is 403; a request with the cookie and no bearer token is 400."
	return op
}

// signIn starts a session for the operator token of the request's Authorization header.
func (a *API) signIn(ctx context.Context, in *signInInput) (*signInOutput, error) {
	t := op.Identity(ctx)
	switch {
	case SessionOf(ctx) != nil:
		return nil, a.Invalid("sign in with an operator token in Authorization: Bearer, not with a session")
	case t.Participant.Kind != transcript.KindOperator:
		return nil, a.Forbidden("only an operator token may sign in to the inspector")
	}
	value, sess := a.Sessions.Start(in.Authorization)
	return &signInOutput{
		SetCookie:    a.Sessions.Cookie(value, sess, in.tls || a.SecureCookie),
		CacheControl: "no-store",
		Body:         SessionInfo{Desk: t.Desk, As: t.Participant, CSRF: sess.CSRF, Expires: sess.Expires},
	}, nil
}

type signOutInput struct{ tls bool }

// Resolve notes whether the sign-out came over TLS, for the cookie that clears it.
func (in *signOutInput) Resolve(ctx huma.Context) []error {
	in.tls = ctx.TLS() != nil
	return nil
}

type signOutOutput struct {
	SetCookie http.Cookie `header:"Set-Cookie"`
}

func (a *API) signOutOperation() huma.Operation {
	op := a.Operation("signOut", http.MethodDelete, "/v1/session",
		"Sign the inspector page out: the session ends and its cookie is cleared", true, http.StatusForbidden)
	op.Description = "204, and the session's cookie no longer authenticates anything (401). With the cookie, " +
		"the request carries the CSRF token in " + CSRFHeader + " (else 403); with a bearer token there is no session to end."
	return op
}

// signOut ends the request's session, if it has one, and clears the cookie.
func (a *API) signOut(ctx context.Context, in *signOutInput) (*signOutOutput, error) {
	if sess := SessionOf(ctx); sess != nil {
		a.Sessions.End(sess)
	}
	return &signOutOutput{SetCookie: a.Sessions.Cookie("", nil, in.tls || a.SecureCookie)}, nil
}
