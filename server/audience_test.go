package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// TestAppendAudienceForms: POST messages takes an audience entry as a string in the
// participant syntax or as the Author object every answer writes, so that an audience read
// from an answer can be posted back as it is; an entry that is neither, or names no
// participant, is a 400 naming its index.
func TestAppendAudienceForms(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})

	// The audience of an answer, posted back as the answer wrote it.
	var read struct {
		Audience json.RawMessage `json:"audience"`
	}
	if err := json.Unmarshal(f.do("POST", "/v1/desks/eng/messages", f.triage, map[string]any{"content": "first", "audience": []string{"agent:coder:Coder"}}).body, &read); err != nil {
		t.Fatal(err)
	}
	back := f.post(f.triage, map[string]any{"content": "again", "audience": read.Audience})
	if diff := cmp.Diff([]transcript.Author{transcript.Agent("coder", "Coder")}, back.Audience); diff != "" {
		t.Errorf("the audience posted back as objects %s: %s", read.Audience, diff)
	}

	// Objects and strings side by side.
	both := f.post(f.coder, map[string]any{"content": "to both", "audience": []any{
		map[string]any{"type": "agent", "id": "triage", "label": "Triage"},
		"operator",
		map[string]any{"type": "system", "kind": "workflow"},
	}})
	want := []transcript.Author{transcript.Operator(), transcript.Agent("triage", "Triage"), transcript.System("workflow", "")}
	if diff := cmp.Diff(want, both.Audience); diff != "" {
		t.Errorf("an audience of objects and strings: %s", diff)
	}

	for _, tt := range []struct {
		name     string
		audience any
		kind     string
	}{
		{"an agent without its id", []any{"operator", map[string]any{"type": "agent"}}, "invalid-audience"},
		{"a system under id", []any{map[string]any{"type": "system", "id": "workflow"}}, "invalid-audience"},
		{"an unknown type", []any{map[string]any{"type": "robot", "id": "r"}}, "invalid-request"},
		{"an object with another field", []any{map[string]any{"type": "agent", "id": "r", "name": "R"}}, "invalid-request"},
		{"a number", []any{5}, "invalid-request"},
		{"an empty string", []any{""}, "invalid-audience"},
	} {
		p := wantProblem(t, f.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "audience": tt.audience}), http.StatusBadRequest, tt.kind)
		if tt.kind == "invalid-audience" && !strings.Contains(p.Detail, "audience entry") {
			t.Errorf("%s: detail %q does not say which entry", tt.name, p.Detail)
		}
	}
}

// TestUnknownPropertyNamed: a body with a field the operation does not take names the
// field, in the detail and in the error's location; a name that could be a secret is not
// quoted.
func TestUnknownPropertyNamed(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	type detailed struct {
		Detail string `json:"detail"`
		Errors []struct {
			Message  string `json:"message"`
			Location string `json:"location"`
		} `json:"errors"`
	}
	r := f.do("POST", "/v1/desks/eng/messages", f.coder, `{"text":"hello"}`)
	wantProblem(t, r, http.StatusBadRequest, "invalid-request")
	var p detailed
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	named := false
	for _, e := range p.Errors {
		named = named || e.Message == `unexpected property "text"` && e.Location == "body.text"
	}
	if !named || !strings.Contains(p.Detail, `unexpected property "text"`) {
		t.Errorf(`{"text":...}: %s; want the error unexpected property "text" at body.text, and the detail to say so`, r.body)
	}

	// A name that could be a secret, or anything but a short plain name, is not quoted.
	secret, _, err := token.New("eng", coder, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{secret, "trs_short", strings.Repeat("x", 33), "with space", "<b>"} {
		body, _ := json.Marshal(map[string]any{"content": "x", name: 1})
		r := f.do("POST", "/v1/desks/eng/messages", f.coder, body)
		wantProblem(t, r, http.StatusBadRequest, "invalid-request")
		if strings.Contains(string(r.body), name) || !strings.Contains(string(r.body), `"location":"body.*"`) {
			t.Errorf("a property named %q: %s; want it unquoted (body.*)", name, r.body)
		}
	}
}
