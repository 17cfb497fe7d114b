package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/server"
)

// TestBodyDecodedStrictly: every request body is decoded as its schema spells it: a name
// given twice is refused (not last-wins, which a proxy or a log reading the first would
// not see), and so is a name in another case than the schema's, also inside an audience's
// Author objects and a delta's state; the problem names the field and where it is.
func TestBodyDecodedStrictly(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	state := `{"conversation":{"desk":"eng"},"watermark":1}`
	for _, tt := range []struct {
		name, path, body  string
		message, location string // the error that must be among the problem's
	}{
		{"an audience object's id twice", "/v1/desks/eng/messages",
			`{"content":"x","audience":[{"type":"agent","id":"triage","id":"coder"}]}`,
			`duplicate property "id"`, "body.audience[0].id"},
		{"an audience object's names in another case", "/v1/desks/eng/messages",
			`{"content":"x","audience":[{"Type":"agent","ID":"triage"}]}`,
			`unexpected property "Type"`, "body.audience[0].Type"},
		{"content twice", "/v1/desks/eng/messages",
			`{"content":"x","content":"y"}`, `duplicate property "content"`, "body.content"},
		{"Content", "/v1/desks/eng/messages",
			`{"Content":"x"}`, `unexpected property "Content"`, "body.Content"},
		{"a delta's watermark twice", "/v1/desks/eng/delta",
			`{"state":{"conversation":{"desk":"eng"},"watermark":1,"watermark":9}}`,
			`duplicate property "watermark"`, "body.state.watermark"},
		{"a delta's Watermark", "/v1/desks/eng/delta",
			`{"state":{"conversation":{"desk":"eng"},"Watermark":1}}`,
			`unexpected property "Watermark"`, "body.state.Watermark"},
		{"a delta's Before", "/v1/desks/eng/delta",
			`{"state":` + state + `,"Before":2}`, `unexpected property "Before"`, "body.Before"},
	} {
		r := f.do("POST", tt.path, f.op, tt.body)
		wantProblem(t, r, http.StatusBadRequest, "invalid-request")
		var p struct {
			Detail string `json:"detail"`
			Errors []struct{ Message, Location string }
		}
		if err := json.Unmarshal(r.body, &p); err != nil {
			t.Fatal(err)
		}
		named := false
		for _, e := range p.Errors {
			named = named || e.Message == tt.message && e.Location == tt.location
		}
		if !named || !strings.Contains(p.Detail, tt.message) {
			t.Errorf("%s: %s; want the error %s at %s, and the detail to say so", tt.name, r.body, tt.message, tt.location)
		}
	}

	// A duplicated name that could be a secret is not quoted.
	r := f.do("POST", "/v1/desks/eng/messages", f.op, `{"content":"x","trs_abc":1,"trs_abc":2}`)
	wantProblem(t, r, http.StatusBadRequest, "invalid-request")
	if strings.Contains(string(r.body), "trs_abc") {
		t.Errorf("a duplicated name that could be a secret: %s; want it unquoted", r.body)
	}

	// Nothing above was stored.
	if got := f.post(f.triage, map[string]any{"content": "after"}); got.Seq != f.aside.Seq+1 {
		t.Errorf("the next row is #%d, want #%d: a refused body was stored", got.Seq, f.aside.Seq+1)
	}
}
