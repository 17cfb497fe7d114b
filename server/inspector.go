package server

import (
	"net/http"

	"github.com/sharedesk/transcript/server/internal/page"
)

// The inspector page's session: EventSource cannot send an Authorization header,
// so the page exchanges an operator token for a cookie (internal/page).
const (
	// SessionCookie names the page's session cookie: HttpOnly, SameSite=Strict, Path=/,
	// Secure when the sign-in came over TLS.
	SessionCookie = page.SessionCookie
	// CSRFHeader is the header a request authenticated by the session cookie carries,
	// unless it is a GET or HEAD: the session's CSRF token, which the page learns from its
	// sign-in answer or the page itself, and a page on another site cannot read.
	CSRFHeader = page.CSRFHeader
)

// DefaultSessionTTL is how long a session lasts from its sign-in (Options.SessionTTL).
const DefaultSessionTTL = page.DefaultSessionTTL

// servePage serves GET /: the inspector when the request's session cookie names a live
// session (identify decides, as for the API), else the sign-in form. A bearer token is no
// sign-in here: a browser sends none.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	data := page.Data{}
	if _, err := r.Cookie(SessionCookie); err == nil && r.Header.Get("Authorization") == "" {
		t, sess, _, err := s.identify(r)
		if err != nil {
			noteError(r.Context(), err)
			writeProblem(w, kindInternal.problem(problemDetail(500)), nil)
			return
		}
		if sess != nil {
			rec := recordOf(r.Context())
			rec.tokenID, rec.desk = t.ID, t.Desk
			data = page.Data{SignedIn: true, Desk: t.Desk, As: t.Participant, CSRF: sess.CSRF, Expires: sess.Expires}
		}
	}
	if err := s.page.Serve(w, data); err != nil {
		noteError(r.Context(), err)
		writeProblem(w, kindInternal.problem(problemDetail(500)), nil)
	}
}
