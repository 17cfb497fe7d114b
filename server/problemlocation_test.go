package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/server"
)

// TestProblemLocationNamesParameter: a parameter of the service that the request gets
// wrong is named in the problem's location and detail, whichever operation documents it
// (the view's digest and rendered, a message's seq in the path), as a parameter given twice
// is; a parameter the service does not know is "*".
func TestProblemLocationNamesParameter(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	for _, tt := range []struct {
		method, path string
		body         any
		location     string
	}{
		{"GET", "/v1/desks/eng/view?digest=yes", nil, "query.digest"},
		{"GET", "/v1/desks/eng/view?rendered=maybe", nil, "query.rendered"},
		{"GET", "/v1/desks/eng/view?digest=true&digest=false", nil, "query.digest"},
		{"PATCH", "/v1/desks/eng/messages/abc", map[string]any{"content": "edited"}, "path.seq"},
		{"GET", "/v1/desks/eng/view?secret-trs_abc=1&secret-trs_abc=2", nil, "query.*"},
	} {
		r := f.do(tt.method, tt.path, f.op, tt.body)
		p := wantProblem(t, r, http.StatusBadRequest, "invalid-request")
		var qp queryProblem
		if err := json.Unmarshal(r.body, &qp); err != nil {
			t.Fatal(err)
		}
		if len(qp.Errors) != 1 || qp.Errors[0].Location != tt.location || !strings.HasSuffix(p.Detail, " at "+tt.location) {
			t.Errorf("%s %s: %s; want one error at %s", tt.method, tt.path, r.body, tt.location)
		}
	}
}
