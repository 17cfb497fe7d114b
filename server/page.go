package server

import (
	"bytes"
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"time"

	"github.com/sharedesk/transcript"
)

// web holds the inspector page: its one template, one stylesheet, one script and
// an icon, embedded in the binary. Nothing is built and nothing is fetched from elsewhere.
//
//go:embed web/page.html web/static
var web embed.FS

// page is the inspector's parsed template and its static files.
type page struct {
	tmpl   *template.Template
	static http.Handler
}

func newPage() (*page, error) {
	tmpl, err := template.ParseFS(web, "web/page.html")
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(web, "web/static")
	if err != nil {
		return nil, err
	}
	return &page{tmpl: tmpl, static: http.StripPrefix("/static/", http.FileServerFS(static))}, nil
}

// pageData is what the template shows: the sign-in form while SignedIn is false, else the
// inspector for the session's desk.
type pageData struct {
	SignedIn bool
	Desk     string
	As       transcript.Author
	CSRF     string
	Expires  time.Time
}

// pageSecurity are the headers of every page response: the page runs only its own script
// and style, loads nothing from elsewhere and is framed by nobody.
var pageSecurity = map[string]string{
	"Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
		"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
	"X-Content-Type-Options": "nosniff",
	"Referrer-Policy":        "no-referrer",
	"X-Frame-Options":        "DENY",
}

// servePage serves GET /: the inspector when the request's session cookie names a live
// session (identify decides, as for the API), else the sign-in form. A bearer token is no
// sign-in here: a browser sends none.
func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	data := pageData{}
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
			data = pageData{SignedIn: true, Desk: t.Desk, As: t.Participant, CSRF: sess.csrf, Expires: sess.expires}
		}
	}
	var b bytes.Buffer
	if err := s.page.tmpl.Execute(&b, data); err != nil {
		noteError(r.Context(), err)
		writeProblem(w, kindInternal.problem(problemDetail(500)), nil)
		return
	}
	for k, v := range pageSecurity {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store") // it holds the session's CSRF token
	w.Write(b.Bytes())
}

// serveStatic serves the page's stylesheet, script and icon.
func (s *Server) serveStatic(w http.ResponseWriter, r *http.Request) {
	for k, v := range pageSecurity {
		w.Header().Set(k, v)
	}
	w.Header().Set("Cache-Control", "no-cache")
	s.page.static.ServeHTTP(w, r)
}
