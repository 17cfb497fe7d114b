package server_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// asideText is the content of an aside between the operator and triage: no response or
// log line to anyone else may ever hold it.
const asideText = "ASIDE-ONLY: the launch code is 0000"

// deskFixture is a desk with a channel, a thread and an aside from the operator to triage,
// and tokens for the operator, triage and coder on it.
type deskFixture struct {
	*env
	op, triage, coder  string
	root, reply, aside transcript.Message
}

func newFixture(t *testing.T, st server.Store, opts server.Options) *deskFixture {
	t.Helper()
	e := newEnv(t, st, opts)
	f := &deskFixture{env: e, op: e.token("eng", operator), triage: e.token("eng", triage), coder: e.token("eng", coder)}
	f.root = e.post(f.op, map[string]any{"content": "deploy today?"})
	f.reply = e.post(f.coder, map[string]any{"content": "yes", "parent": f.root.Seq})
	f.aside = e.post(f.op, map[string]any{"content": asideText, "audience": []string{"agent:triage"}})
	return f
}

func TestRoutes(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		e := f.env

		t.Run("desks", func(t *testing.T) {
			got := decode[server.DeskList](t, e.do("GET", "/v1/desks", f.coder, nil), 200)
			if diff := cmp.Diff(server.DeskList{Desks: []server.Desk{{Name: "eng", Head: f.aside.Seq, As: coder}}}, got); diff != "" {
				t.Error(diff)
			}
			other := e.token("empty", coder)
			got = decode[server.DeskList](t, e.do("GET", "/v1/desks", other, nil), 200)
			if diff := cmp.Diff(server.DeskList{Desks: []server.Desk{{Name: "empty", As: coder}}}, got); diff != "" {
				t.Error(diff)
			}
		})

		t.Run("view", func(t *testing.T) {
			p := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view", f.coder, nil), 200)
			if seqs(p.Messages) != "1,2" || len(p.Elided) != 1 || p.Elided[0].From != f.aside.Seq || p.Head != 3 {
				t.Errorf("coder's view: %s, elided %+v, head %d", seqs(p.Messages), p.Elided, p.Head)
			}
			p = decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view", f.triage, nil), 200)
			if seqs(p.Messages) != "1,2,3" || len(p.Elided) != 0 {
				t.Errorf("triage's view: %s, elided %+v", seqs(p.Messages), p.Elided)
			}
			p = decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view?as=agent:coder", f.op, nil), 200)
			if seqs(p.Messages) != "1,2" || len(p.Elided) != 1 {
				t.Errorf("the operator as coder: %s, elided %+v", seqs(p.Messages), p.Elided)
			}
			p = decode[transcript.Projection](t, e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d&window=5", f.root.Seq), f.coder, nil), 200)
			if seqs(p.Messages) != "1,2" {
				t.Errorf("thread view: %s", seqs(p.Messages))
			}
			p = decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view?before=2", f.coder, nil), 200)
			if seqs(p.Messages) != "1" {
				t.Errorf("view before 2: %s", seqs(p.Messages))
			}
			wantProblem(t, e.do("GET", "/v1/desks/eng/view?window=x", f.coder, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", "/v1/desks/eng/view?window=3000", f.coder, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", "/v1/desks/eng/view?viewer=operator", f.coder, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", "/v1/desks/eng/view?as=nobody", f.op, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", "/v1/desks/eng/view?as=operator", f.coder, nil), 403, "forbidden")
			wantProblem(t, e.do("GET", "/v1/desks/other/view", f.coder, nil), 404, "not-found")
			missing := wantProblem(t, e.do("GET", "/v1/desks/eng/view?thread=99", f.coder, nil), 404, "not-found")
			hidden := wantProblem(t, e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", f.aside.Seq), f.coder, nil), 404, "not-found")
			if missing != hidden {
				t.Errorf("a thread the viewer may not read: %+v; one that does not exist: %+v", hidden, missing)
			}
			decode[transcript.Projection](t, e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", f.aside.Seq), f.triage, nil), 200)
		})

		t.Run("threads", func(t *testing.T) {
			l := decode[transcript.ThreadList](t, e.do("GET", "/v1/desks/eng/threads", f.coder, nil), 200)
			if len(l.Threads) != 1 || l.Threads[0].Root.Seq != f.root.Seq || l.Threads[0].Replies != 1 || l.Threads[0].Newest != f.reply.Seq {
				t.Errorf("threads: %+v", l)
			}
			decode[transcript.ThreadList](t, e.do("GET", "/v1/desks/eng/threads?limit=5&before=3&as=agent:triage", f.op, nil), 200)
			wantProblem(t, e.do("GET", "/v1/desks/eng/threads?limit=500", f.coder, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", "/v1/desks/eng/threads?as=agent:triage", f.coder, nil), 403, "forbidden")
			wantProblem(t, e.do("GET", "/v1/desks/other/threads", f.coder, nil), 404, "not-found")
		})

		t.Run("append", func(t *testing.T) {
			m := e.post(f.coder, map[string]any{"content": "on it", "parent": f.root.Seq, "key": "k1"})
			if !m.Author.Same(coder) || m.Author.Label != "Coder" || m.Parent != f.root.Seq || m.Key != "k1" {
				t.Errorf("stored %+v", m)
			}
			again := decode[transcript.Message](t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "on it", "parent": f.root.Seq, "key": "k1"}), 200)
			if diff := cmp.Diff(m, again); diff != "" {
				t.Errorf("replay: %s", diff)
			}
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "something else", "key": "k1"}), 409, "key-conflict")
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.triage, map[string]any{"content": "on it", "parent": f.root.Seq, "key": "k1"}), 409, "key-conflict")

			aside := e.post(f.triage, map[string]any{"content": "noted", "parent": f.aside.Seq})
			if len(aside.Audience) != 1 || !aside.Audience[0].Same(operator) {
				t.Errorf("a reply to the aside: audience %v, want [operator]", aside.Audience)
			}
			two := e.post(f.triage, map[string]any{"content": "to the two of you", "audience": []string{"agent:coder:Coder", "operator"}})
			if len(two.Audience) != 2 {
				t.Errorf("audience %v", two.Audience)
			}

			p := wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "author": map[string]any{"type": "operator"}}), 400, "invalid-request")
			if !strings.Contains(p.Detail, "author") {
				t.Errorf("a body naming an author: detail %q", p.Detail)
			}
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "seq": 9}), 400, "invalid-request")
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, `{"content":`), 400, "invalid-request")
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{}), 400, "invalid-request")
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "audience": []string{"robot:1"}}), 400, "invalid-audience")
			if p := wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "audience": []string{"agent:coder"}}), 400, "invalid-audience"); p.Detail != "audience entry 0 (agent:coder) is the author itself" {
				t.Errorf("an audience naming its author: detail %q, want the reason alone", p.Detail)
			}
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.triage, map[string]any{"content": "x", "parent": f.aside.Seq, "audience": []string{"agent:coder"}}), 400, "invalid-audience")
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "key": "bell\a"}), 400, "invalid-message")
			wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "nul\x00"}), 400, "invalid-message")
			missing := wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "parent": 999}), 404, "not-found")
			hidden := wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "parent": f.aside.Seq}), 404, "not-found")
			if missing != hidden {
				t.Errorf("a parent the author may not read: %+v; one that does not exist: %+v", hidden, missing)
			}
			wantProblem(t, e.do("POST", "/v1/desks/other/messages", f.coder, map[string]any{"content": "x"}), 404, "not-found")
		})

		t.Run("delta", func(t *testing.T) {
			state := sharing.Initialized(transcript.Conversation{Desk: "eng"}, 1)
			r := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{"state": state, "before": f.aside.Seq + 1}), 200)
			if r.Delta == nil || r.Reinitialize != "" || seqs(r.Delta.Messages) != "2" || len(r.Delta.Elided) != 1 || r.Delta.Next.Watermark != f.aside.Seq+1 {
				t.Errorf("coder's delta from 1: %+v", r)
			}
			r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta?as=agent:triage", f.op, map[string]any{"state": state, "before": 3}), 200)
			if r.Delta == nil || seqs(r.Delta.Messages) != "2" || r.Delta.Next.Watermark != 3 {
				t.Errorf("triage's delta from 1 before 3: %+v", r)
			}
			thread := transcript.Conversation{Desk: "eng", Thread: f.root.Seq}
			r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{
				"state": sharing.Initialized(thread, 0), "conversation": map[string]any{"thread": f.root.Seq}}), 200)
			if r.Delta == nil || seqs(r.Delta.Messages) == "" {
				t.Errorf("thread delta: %+v", r)
			}
			r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{
				"state": sharing.Initialized(transcript.Conversation{Desk: "other"}, 0)}), 200)
			if r.Reinitialize != "conversation_changed" || r.Delta != nil ||
				r.Conversation == nil || *r.Conversation != (transcript.Conversation{Desk: "eng"}) ||
				r.StateConversation == nil || *r.StateConversation != (transcript.Conversation{Desk: "other"}) {
				t.Errorf("a state of another desk: %+v, want conversation_changed naming both conversations", r)
			}
			// A state from another database, or from before a restore: the rows up to its
			// watermark or bound would never come. (A token of its own: coder's rate limit
			// is for the requests below.)
			fresh := e.token("eng", coder)
			for _, body := range []map[string]any{
				{"state": sharing.Initialized(transcript.Conversation{Desk: "eng"}, 9999)},
				{"state": state, "before": 9999},
			} {
				r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", fresh, body), 200)
				if r.Reinitialize != "watermark_unavailable" || r.Delta != nil {
					t.Errorf("delta %v beyond the desk's head %d: %+v, want reinitialize watermark_unavailable", body, f.aside.Seq, r)
				}
			}
			wantProblem(t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{"state": state, "conversation": map[string]any{"desk": "other"}}), 400, "invalid-request")
			wantProblem(t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{"state": sharing.Initialized(transcript.Conversation{Desk: "eng"}, 3), "before": 2}), 400, "watermark-regression")
			wantProblem(t, e.do("POST", "/v1/desks/eng/delta", f.coder, `{"state":{"conversation":{"desk":"eng"},"watermark":5,"present":[3]}}`), 400, "invalid-request")
			wantProblem(t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{}), 400, "invalid-request")
			wantProblem(t, e.do("POST", "/v1/desks/eng/delta?as=operator", f.coder, map[string]any{"state": state}), 403, "forbidden")
			wantProblem(t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{
				"state": sharing.Initialized(transcript.Conversation{Desk: "eng", Thread: f.aside.Seq}, 0), "conversation": map[string]any{"thread": f.aside.Seq}}), 404, "not-found")
			wantProblem(t, e.do("POST", "/v1/desks/other/delta", f.coder, map[string]any{"state": state}), 404, "not-found")
		})

		t.Run("public", func(t *testing.T) {
			if r := e.do("GET", "/healthz", "", nil); r.status != 200 || !strings.Contains(string(r.body), `"ok"`) {
				t.Errorf("healthz: %d %s", r.status, r.body)
			}
			r := e.do("GET", "/metrics", "", nil)
			if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain; version=0.0.4") ||
				!strings.Contains(string(r.body), `transcript_http_requests_total{route="POST /v1/desks/{desk}/messages",method="POST",status="201"}`) {
				t.Errorf("metrics: %d %q\n%s", r.status, r.header.Get("Content-Type"), r.body)
			}
			wantProblem(t, e.do("GET", "/nowhere", "", nil), 404, "not-found")
			r = e.do("DELETE", "/v1/desks/eng/messages", f.coder, nil)
			wantProblem(t, r, 405, "method-not-allowed")
			if r.header.Get("Allow") != "POST" {
				t.Errorf("Allow: %q", r.header.Get("Allow"))
			}
		})
	})
}

// wantProblem checks r is a problem of status and kind and returns it.
func wantProblem(t *testing.T, r response, status int, kind string) problem {
	t.Helper()
	if r.status != status {
		t.Errorf("status %d, want %d: %s", r.status, status, r.body)
		return problem{}
	}
	p := r.problem(t)
	if p.kind() != kind {
		t.Errorf("problem type %q, want kind %s: %s", p.Type, kind, r.body)
	}
	if strings.Contains(string(r.body), asideText) {
		t.Errorf("a problem holds the aside's content: %s", r.body)
	}
	return p
}

// seqs lists the messages' Seqs, "1,2,3".
func seqs(ms []transcript.Message) string {
	s := make([]string, len(ms))
	for i, m := range ms {
		s[i] = fmt.Sprint(m.Seq)
	}
	return strings.Join(s, ",")
}

// failingStore is a store whose reads or token lookups fail on demand.
type failingStore struct {
	server.Store
	reads, tokens atomic.Bool
}

var errBroken = errors.New("broken store")

func (s *failingStore) Log(desk string) transcript.Log { return failingLog{s.Store.Log(desk), s} }

func (s *failingStore) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	if s.tokens.Load() {
		return token.Token{}, errBroken
	}
	return s.Store.TokenByHash(ctx, hash)
}

type failingLog struct {
	transcript.Log
	s *failingStore
}

func (l failingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if l.s.reads.Load() {
		return transcript.Page{}, errBroken
	}
	return l.Log.ReadBefore(ctx, before, limit)
}

// TestStoreFailures: a store that fails is 500 (503 for /healthz), not 401 or 404, and the
// response says nothing of the failure; the log line does.
func TestStoreFailures(t *testing.T) {
	st := &failingStore{Store: sqliteStore(t)}
	f := newFixture(t, st, server.Options{})
	e := f.env
	st.reads.Store(true)
	for _, path := range []string{"/v1/desks", "/v1/desks/eng/view", "/v1/desks/eng/threads", "/v1/desks/eng/events"} {
		p := wantProblem(t, e.do("GET", path, f.coder, nil), 500, "internal")
		if strings.Contains(p.Detail, "broken") {
			t.Errorf("%s: the problem quotes the store's error: %+v", path, p)
		}
	}
	wantProblem(t, e.do("POST", "/v1/desks/eng/delta", f.coder, map[string]any{"state": sharing.Initialized(transcript.Conversation{Desk: "eng"}, 0)}), 500, "internal")
	wantProblem(t, e.do("POST", "/v1/desks/eng/messages", f.coder, map[string]any{"content": "x", "parent": 1}), 500, "internal")
	wantProblem(t, e.do("GET", "/healthz", "", nil), 503, "unavailable")
	st.reads.Store(false)
	st.tokens.Store(true)
	wantProblem(t, e.do("GET", "/v1/desks", f.coder, nil), 500, "internal")
	if !strings.Contains(e.log.String(), "broken store") {
		t.Errorf("the log does not name the store's failure:\n%s", e.log)
	}
}

// TestConcurrentKeyedAppends: of many concurrent appends of one keyed message, one is
// 201 and the rest 200, all with the same row.
func TestConcurrentKeyedAppends(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{Burst: 100})
		secret := e.token("eng", coder)
		statuses, rows := racePosts(t, []*env{e}, secret, "only-once", 20)
		if statuses[201] != 1 || statuses[200] != 19 || len(rows) != 1 {
			t.Errorf("statuses %v, rows %v: want one 201, nineteen 200, one row", statuses, rows)
		}
	})
}

// TestBodyLimits: content over the store's limit (one opened with a lower limit) and a body over MaxBody are 413; a body
// that is not JSON is 415.
func TestBodyLimits(t *testing.T) {
	e := newEnv(t, openSQLite(t, t.TempDir(), sqlitestore.WithMaxContent(100)), server.Options{MaxBody: 1000})
	secret := e.token("eng", coder)
	e.post(secret, map[string]any{"content": strings.Repeat("x", 100)})
	p := wantProblem(t, e.do("POST", "/v1/desks/eng/messages", secret, map[string]any{"content": strings.Repeat("x", 101)}), 413, "too-large")
	if strings.Contains(p.Detail, "xxx") {
		t.Errorf("the problem quotes the content: %+v", p)
	}
	wantProblem(t, e.do("POST", "/v1/desks/eng/messages", secret, map[string]any{"content": strings.Repeat("y", 2000)}), 413, "too-large")
	wantProblem(t, e.do("POST", "/v1/desks/eng/delta", secret, `{"state":{"conversation":{"desk":"eng"},"watermark":0},"x":"`+strings.Repeat("y", 2000)+`"}`), 413, "too-large")
	wantProblem(t, e.do("POST", "/v1/desks/eng/messages", secret, "content=x", "Content-Type", "text/plain"), 415, "unsupported-media-type")
}
