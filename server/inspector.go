package server

import (
	"context"
	"net/http"

	"github.com/sharedesk/transcript"
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

// The answers of the operations only the page calls (internal/page).
type (
	// SessionInfo is what a sign-in answers: whom the session is for, and the CSRF token
	// the page sends in CSRFHeader with every request that is no GET or HEAD.
	SessionInfo = page.SessionInfo
	// RowPage is one bounded read of a desk's rows (GET rows).
	RowPage = page.RowPage
	// ParticipantList is GET participants' answer.
	ParticipantList = page.ParticipantList
	// ElisionLines is POST elision-lines' answer.
	ElisionLines = page.ElisionLines
)

const (
	// DefaultRowLimit is how many rows GET rows answers when limit is absent.
	DefaultRowLimit = page.DefaultRowLimit
	// MaxParticipantScan is how many of a desk's newest rows GET participants reads for
	// their authors and audiences; past it the answer says it is partial.
	MaxParticipantScan = page.MaxParticipantScan
)

// pageAPI is the operations only the page calls, over the server's store and sessions;
// the model route renders what GET view answers (project).
func (s *Server) pageAPI() *page.API {
	return &page.API{
		Service:      s.opService(),
		Sessions:     s.sess,
		SecureCookie: s.opts.SecureCookie,
		Project: func(ctx context.Context, desk string, thread, before transcript.Sequence, window int, as string, digest bool) (transcript.Projection, transcript.Author, error) {
			return s.project(ctx, &viewInput{Desk: desk, Thread: thread, Before: before, Window: window, As: as, Digest: digest})
		},
	}
}

// servePage serves GET /: the inspector when the request's session cookie names a live
// session (identify decides, as for the API), else the sign-in form. A bearer token is no
// sign-in here: a browser sends none.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	data := page.Data{}
	if _, err := r.Cookie(SessionCookie); err == nil && r.Header.Get("Authorization") == "" {
		t, sess, _, _, err := s.identify(r, false)
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
