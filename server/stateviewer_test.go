package server_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
)

// TestDeltaStateOfAnotherViewer: a delta's next names the participant it was read for, and
// a state that names another participant is conversation_changed with the state's viewer,
// and no delta: coder handed triage's state never skips #4, which triage's state holds as
// present. The state's own participant goes on from it, and a state that names none is
// taken as it is.
func TestDeltaStateOfAnotherViewer(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		e := f.env
		eng := transcript.Conversation{Desk: "eng"}

		r := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", f.triage, map[string]any{"state": sharing.Initialized(eng, 0), "before": 4}), 200)
		if r.Delta == nil || r.Delta.Next.Viewer != transcript.Agent("triage", "") {
			t.Fatalf("triage's delta: %+v, want a next naming triage", r)
		}
		var raw struct {
			Delta struct{ Next map[string]any } `json:"delta"`
		}
		if err := json.Unmarshal(e.do("POST", "/v1/desks/eng/delta", f.triage, map[string]any{"state": sharing.Initialized(eng, 0), "before": 4}).body, &raw); err != nil ||
			!cmp.Equal(raw.Delta.Next["viewer"], map[string]any{"type": "agent", "id": "triage"}) {
			t.Errorf("triage's next on the wire: %v, %v; want viewer {type: agent, id: triage}", raw.Delta.Next, err)
		}
		triages := r.Delta.Next
		mine := e.post(f.triage, map[string]any{"content": "triage's reply"}) // #4
		if err := triages.NotePresent(mine.Seq); err != nil {
			t.Fatal(err)
		}
		news := e.post(f.op, map[string]any{"content": "news"}) // #5

		for _, who := range []struct {
			name, secret, as string
		}{{"coder", f.coder, ""}, {"the operator", f.op, ""}, {"the operator as coder", f.op, "?as=agent:coder"}} {
			r := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta"+who.as, who.secret, map[string]any{"state": triages}), 200)
			want := server.DeltaResult{Reinitialize: "conversation_changed", StateViewer: &transcript.Author{Kind: transcript.KindAgent, ID: "triage"}}
			if diff := cmp.Diff(want, r); diff != "" {
				t.Errorf("%s's delta from triage's state (-want +got):\n%s", who.name, diff)
			}
		}
		for _, who := range []struct {
			name, secret, as string
		}{{"triage", f.triage, ""}, {"the operator as triage", f.op, "?as=agent:triage"}} {
			r := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta"+who.as, who.secret, map[string]any{"state": triages}), 200)
			if r.Delta == nil || seqs(r.Delta.Messages) != seqs([]transcript.Message{news}) {
				t.Errorf("%s's delta from triage's state: %+v, want #%d alone", who.name, r, news.Seq)
			}
		}
		labelled := strings.Replace(mustJSON(t, triages), `"id":"triage"`, `"id":"triage","label":"Triage (renamed)"`, 1)
		r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", f.triage, `{"state":`+labelled+`}`), 200)
		if r.Delta == nil || seqs(r.Delta.Messages) != seqs([]transcript.Message{news}) {
			t.Errorf("triage's delta from its state under another label: %+v, want #%d alone", r, news.Seq)
		}

		anyones := triages
		anyones.Viewer = transcript.Author{}
		r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{"state": anyones}), 200)
		if r.Delta == nil || seqs(r.Delta.Messages) != seqs([]transcript.Message{news}) || r.Delta.Next.Viewer != transcript.Agent("coder", "") {
			t.Errorf("coder's delta from a state that names no viewer: %+v, want #%d and a next naming coder", r, news.Seq)
		}

		for _, viewer := range []string{`{"type":"robot","id":"x"}`, `{"type":"agent"}`, `{"type":"agent","id":"triage","extra":1}`, `"agent:triage"`} {
			body := `{"state":{"conversation":{"desk":"eng"},"watermark":1,"viewer":` + viewer + `}}`
			res := e.do("POST", "/v1/desks/eng/delta", f.triage, body)
			if wantProblem(t, res, 400, "invalid-request"); !strings.Contains(string(res.body), "viewer") {
				t.Errorf("a state whose viewer is %s: %s, want a problem naming the viewer", viewer, res.body)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
