package server_test

import (
	"net/http"
	"testing"

	"github.com/sharedesk/transcript/server"
)

// TestStaticRangeErrorIsAProblem: an error the page's static files answer is a
// problem, as every error of the server is.
func TestStaticRangeErrorIsAProblem(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{})
	r := f.do("GET", "/static/icon.svg", "", nil, "Range", "bytes=999999-")
	if r.status != http.StatusRequestedRangeNotSatisfiable || r.header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("GET /static/icon.svg with an unsatisfiable Range: %d, Content-Type %q, body %q; want a 416 problem", r.status, r.header.Get("Content-Type"), r.body)
	}
	t.Logf("%d %q %s", r.status, r.header.Get("Content-Type"), r.body)
}
