package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestBlankRefused: a post or an edit whose content is blank is refused with 400 blank, on
// every store, and nothing is stored; a redaction, which has no content, is no blank edit.
func TestBlankRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		e := f.env
		head := func() transcript.Sequence {
			return decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view", f.op, nil), 200).Head
		}
		before := head()
		for _, content := range []string{"", "   ", "\n\t \r\n", "\u00a0\u3000"} {
			p := wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": content}), http.StatusBadRequest, "blank")
			if !strings.Contains(p.Detail, "blank") || p.Title == "" {
				t.Errorf("content %q: title %q, detail %q; want them to say the content is blank", content, p.Title, p.Detail)
			}
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": content, "parent": f.root.Seq, "key": "k"}), http.StatusBadRequest, "blank")
			wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, map[string]any{"content": content}), http.StatusBadRequest, "blank")
		}
		if got := head(); got != before {
			t.Errorf("the blank posts moved the head from %d to %d", before, got)
		}
		decode[transcript.Message](t, e.do("DELETE", messagePath(f.reply.Seq), f.coder, nil), http.StatusCreated)
	})
}

// TestRefusalDetailNamesNoPackage: the detail of a store's refusal says what is wrong
// once, without the store's package name or the desk it appended to.
func TestRefusalDetailNamesNoPackage(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		e := f.env
		edit := decode[transcript.Message](t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, map[string]any{"content": "yes, after 77"}), http.StatusCreated)
		p := wantProblem(t, e.do("DELETE", messagePath(edit.Seq), f.coder, nil), http.StatusBadRequest, "invalid-message")
		for _, bad := range []string{"sqlitestore", "pgstore", "transcript:", "posting:", "append to desk"} {
			if strings.Contains(p.Detail, bad) {
				t.Errorf("detail %q says %q", p.Detail, bad)
			}
		}
		if !strings.Contains(p.Detail, "correction of message") {
			t.Errorf("detail %q does not say the row is a correction of another", p.Detail)
		}
	})
}
