package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestEmptyAudienceRefused: "audience": [] names no reader; it is a 400 telling the client
// to omit the field, and nothing is stored, rather than a message the whole desk reads.
func TestEmptyAudienceRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		head := f.aside.Seq
		r := f.do("POST", "/v1/desks/eng/messages", f.triage, `{"content":"for nobody else","audience":[]}`)
		if p := wantProblem(t, r, http.StatusBadRequest, "invalid-audience"); !strings.Contains(p.Detail, "omit the audience") {
			t.Errorf("detail %q, want it to say to omit the audience", p.Detail)
		}
		page, err := st.Log("eng").ReadBefore(t.Context(), 0, 1)
		if err != nil || len(page.Messages) != 1 || page.Messages[0].Seq != head {
			t.Errorf("the desk's newest row is %+v (%v), want %d: the refused post stored something", page.Messages, err, head)
		}
		if m := f.post(f.triage, map[string]any{"content": "for the whole desk"}); m.Audience != nil || m.Seq != head+1 {
			t.Errorf("a post without an audience stored %+v, want row %d for the whole desk", m, head+1)
		}
		if m := decode[transcript.Message](t, f.do("POST", "/v1/desks/eng/messages", f.triage, `{"content":"aside","audience":["agent:coder"]}`), http.StatusCreated); len(m.Audience) != 1 {
			t.Errorf("a post with an audience stored %+v, want an aside", m)
		}
	})
}
