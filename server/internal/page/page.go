package page

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

// Page is the inspector's parsed template and its static files.
type Page struct {
	tmpl   *template.Template
	static http.Handler
}

// New parses the page's template.
func New() (*Page, error) {
	tmpl, err := template.ParseFS(web, "web/page.html")
	if err != nil {
		return nil, err
	}
	static, err := fs.Sub(web, "web/static")
	if err != nil {
		return nil, err
	}
	return &Page{tmpl: tmpl, static: http.StripPrefix("/static/", http.FileServerFS(static))}, nil
}

// Data is what the template shows: the sign-in form while SignedIn is false, else the
// inspector for the session's desk.
type Data struct {
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

// Serve writes the page showing data, with its security headers; nothing is written when
// the template fails, whose error it returns.
func (p *Page) Serve(w http.ResponseWriter, data Data) error {
	var b bytes.Buffer
	if err := p.tmpl.Execute(&b, data); err != nil {
		return err
	}
	for k, v := range pageSecurity {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store") // it holds the session's CSRF token
	w.Write(b.Bytes())
	return nil
}

// ServeStatic serves the page's stylesheet, script and icon.
func (p *Page) ServeStatic(w http.ResponseWriter, r *http.Request) {
	for k, v := range pageSecurity {
		w.Header().Set(k, v)
	}
	w.Header().Set("Cache-Control", "no-cache")
	p.static.ServeHTTP(w, r)
}
