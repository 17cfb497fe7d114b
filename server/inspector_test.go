package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// scriptTag finds every script element and what it holds between its tags.
var scriptTag = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)

// TestPage: GET / is the sign-in form without a session and the inspector with one; the
// page runs only its own files (a Content-Security-Policy, no inline script), escapes
// what the desk names, and holds the session's CSRF token only for the signed-in page.
func TestPage(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})

	r := f.do("GET", "/", "", nil)
	body := string(r.body)
	if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /: %d %s", r.status, r.header.Get("Content-Type"))
	}
	if !strings.Contains(body, `<form id="sign-in"`) || strings.Contains(body, `id="columns"`) {
		t.Errorf("GET / without a session is not the sign-in form:\n%s", body)
	}
	csp := r.header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("Content-Security-Policy %q lacks %s", csp, want)
		}
	}
	if r.header.Get("Cache-Control") != "no-store" || r.header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("GET / headers: %v", r.header)
	}
	for _, m := range scriptTag.FindAllStringSubmatch(body, -1) {
		if strings.TrimSpace(m[2]) != "" || !strings.Contains(m[1], `src="/static/`) {
			t.Errorf("a script that is not one of the page's files: %s", m[0])
		}
	}
	if strings.Contains(body, "http://") || strings.Contains(body, "https://") {
		t.Errorf("the page names another site (no CDN, no network beyond the server):\n%s", body)
	}

	s := f.signIn(f.op)
	r = f.withCookie("GET", "/", s, false, nil)
	body = string(r.body)
	for _, want := range []string{`id="columns"`, `data-desk="eng"`, `data-csrf="` + s.info.CSRF + `"`, `<template id="viewer-template">`, `<form id="compose"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the signed-in page lacks %s", want)
		}
	}
	if strings.Contains(body, `id="sign-in"`) {
		t.Error("the signed-in page still shows the sign-in form")
	}

	// A desk name that is HTML is shown as text: no new desk has one, but a token an older
	// version stored may name one.
	odd := `<b>"eng"&</b>`
	oddEnv := newEnv(t, oldDeskTokens{f.st, odd}, server.Options{})
	oddSession := oddEnv.signIn(oddEnv.token("eng", operator))
	body = string(oddEnv.withCookie("GET", "/", oddSession, false, nil).body)
	if strings.Contains(body, odd) || !strings.Contains(body, `&lt;b&gt;&#34;eng&#34;&amp;&lt;/b&gt;`) {
		t.Errorf("the desk name %q is not escaped in the page", odd)
	}

	// A session that ended is the sign-in form again, and no CSRF token.
	f.withCookie("DELETE", "/v1/session", s, true, nil)
	body = string(f.withCookie("GET", "/", s, false, nil).body)
	if !strings.Contains(body, `id="sign-in"`) || strings.Contains(body, s.info.CSRF) {
		t.Error("the page of a signed-out session is not the bare sign-in form")
	}

	if r := f.do("POST", "/", "", nil); r.status != http.StatusMethodNotAllowed || r.header.Get("Allow") != "GET" {
		t.Errorf("POST /: %d, Allow %q; want 405 and GET", r.status, r.header.Get("Allow"))
	}
}

// TestStatic: the page's files are served with their types, and nothing else is.
func TestStatic(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	for path, want := range map[string]string{
		"/static/inspector.js":  "text/javascript",
		"/static/inspector.css": "text/css",
		"/static/icon.svg":      "image/svg+xml",
	} {
		r := e.do("GET", path, "", nil)
		if r.status != http.StatusOK || !strings.HasPrefix(r.header.Get("Content-Type"), want) || len(r.body) == 0 {
			t.Errorf("GET %s: %d %q, %d bytes; want 200 %s", path, r.status, r.header.Get("Content-Type"), len(r.body), want)
		}
		if r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: no X-Content-Type-Options: nosniff", path)
		}
	}
	for _, path := range []string{"/static/", "/static/nothing.js", "/static/../page.html", "/page.html", "/web/page.html"} {
		if r := e.do("GET", path, "", nil); r.status != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, r.status)
		}
	}
}

// TestRows: the desk's rows as they are, for the operator only: blank rows, thread
// interiors and asides included, oldest first, in bounded pages.
func TestRows(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	blank, err := f.st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: "  \n "}) // as an import stores one
	if err != nil {
		t.Fatal(err)
	}
	deep := f.post(f.op, map[string]any{"content": "a reply to a reply", "parent": f.reply.Seq})

	pg := decode[server.RowPage](t, f.do("GET", "/v1/desks/eng/rows?limit=3", f.op, nil), http.StatusOK)
	if seqs(pg.Rows) != seqs([]transcript.Message{f.aside, blank, deep}) || pg.Next != f.aside.Seq {
		t.Errorf("the newest three rows: %s, next %d; want %d,%d,%d and next %d", seqs(pg.Rows), pg.Next, f.aside.Seq, blank.Seq, deep.Seq, f.aside.Seq)
	}
	if pg.Rows[0].Content != asideText || len(pg.Rows[0].Audience) != 1 || pg.Rows[1].Content != "  \n " {
		t.Errorf("the rows are not as stored: %+v", pg.Rows)
	}
	older := decode[server.RowPage](t, f.do("GET", "/v1/desks/eng/rows?limit=3&before=3", f.op, nil), http.StatusOK)
	if seqs(older.Rows) != "1,2" || older.Next != 0 {
		t.Errorf("the rows below 3: %s, next %d; want 1,2 and 0", seqs(older.Rows), older.Next)
	}
	for _, secret := range []string{f.triage, f.coder} {
		if r := f.do("GET", "/v1/desks/eng/rows", secret, nil); r.status != http.StatusForbidden || strings.Contains(string(r.body), asideText) {
			t.Errorf("rows for a participant's token: %d %s, want 403", r.status, r.body)
		}
	}
	if r := f.do("GET", "/v1/desks/eng/rows?limit=513", f.op, nil); r.status != http.StatusBadRequest {
		t.Errorf("rows?limit=513: %d, want 400", r.status)
	}

	// The stream: every row from its watermark on, the operator's own and blank ones
	// too, which no view's stream sends.
	st := f.open("/v1/desks/eng/rows/events?after=0", f.op)
	var got []string
	for range 5 {
		ev, ok := st.next(5 * time.Second)
		if !ok || ev.event != "row" {
			t.Fatalf("event %+v, want a row", ev)
		}
		var m transcript.Message
		if err := json.Unmarshal([]byte(ev.data), &m); err != nil || ev.id != fmt.Sprint(m.Seq) {
			t.Fatalf("row event %+v: %v", ev, err)
		}
		got = append(got, fmt.Sprint(m.Seq))
	}
	live := f.post(f.op, map[string]any{"content": "live, from the operator"})
	if ev, _ := st.next(5 * time.Second); ev.id != fmt.Sprint(live.Seq) {
		t.Errorf("after the desk's rows %v, event %+v, want the operator's own new row %d", got, ev, live.Seq)
	}
	// More new rows at once than a stream crosses: reinitialize, and the stream ends.
	burst := make([]transcript.Message, transcript.ScanLimit+1)
	for i := range burst {
		burst[i] = transcript.Message{Author: transcript.System("workflow", "CI"), Content: "build passed"}
	}
	if err := f.st.(*sqlitestore.Store).AppendBatch(t.Context(), "eng", burst); err != nil {
		t.Fatal(err)
	}
	for {
		ev, ok := st.next(10 * time.Second)
		if !ok {
			t.Fatal("the stream ended without a reinitialize event")
		}
		if ev.event == "reinitialize" {
			if ev.data != `{"reason":"gap_too_large"}` {
				t.Errorf("reinitialize %s, want gap_too_large", ev.data)
			}
			break
		}
		t.Fatalf("event %+v before the reinitialize event", ev)
	}
	if ev, ok := st.next(5 * time.Second); ok {
		t.Errorf("after reinitialize, event %+v: the stream should end", ev)
	}
	if r := f.do("GET", "/v1/desks/eng/rows/events", f.triage, nil); r.status != http.StatusForbidden {
		t.Errorf("the rows stream for a participant's token: %d, want 403", r.status)
	}
}

// TestModelRoute: GET model is the view rendered by render.ModelInput, byte for byte, for
// the token's participant or as=.
func TestModelRoute(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	for _, tt := range []struct {
		secret, query string
		viewer        transcript.Author
	}{
		{f.op, "format=anthropic&as=agent:coder", coder},
		{f.op, "format=openai&as=agent:triage", triage},
		{f.triage, "format=anthropic", triage},
		{f.coder, "format=openai&thread=1&window=5", coder},
	} {
		r := f.do("GET", "/v1/desks/eng/model?"+tt.query, tt.secret, nil)
		if r.status != http.StatusOK || r.header.Get("Content-Type") != "application/json" {
			t.Fatalf("model?%s: %d %s", tt.query, r.status, r.body)
		}
		q := decodeQuery(t, tt.query)
		view := decode[transcript.Projection](t, f.do("GET", "/v1/desks/eng/view?"+q.view, tt.secret, nil), http.StatusOK)
		want, err := render.ModelInput(render.ModelFormat(q.format), tt.viewer, view.Messages, view.Elided...)
		if err != nil {
			t.Fatal(err)
		}
		if string(r.body) != string(want) {
			t.Errorf("model?%s:\n got %s\nwant %s", tt.query, r.body, want)
		}
		if tt.viewer.Same(coder) && strings.Contains(string(r.body), "launch code") {
			t.Errorf("coder's model input holds the aside to triage: %s", r.body)
		}
	}
	for query, status := range map[string]int{
		"":                              http.StatusBadRequest,
		"format=text":                   http.StatusBadRequest,
		"format=anthropic&as=nobody":    http.StatusBadRequest,
		"format=anthropic&thread=99":    http.StatusNotFound,
		"format=anthropic&as=operator":  http.StatusForbidden, // as= from a participant's token
		"format=anthropic&unknown=true": http.StatusBadRequest,
	} {
		secret := f.op
		if status == http.StatusForbidden {
			secret = f.coder
		}
		if r := f.do("GET", "/v1/desks/eng/model?"+query, secret, nil); r.status != status {
			t.Errorf("model?%s: %d, want %d", query, r.status, status)
		}
	}
}

// modelQuery is a model route's query split into its format and the view's parameters.
type modelQuery struct{ format, view string }

func decodeQuery(t *testing.T, q string) modelQuery {
	t.Helper()
	var out modelQuery
	var rest []string
	for _, kv := range strings.Split(q, "&") {
		if v, ok := strings.CutPrefix(kv, "format="); ok {
			out.format = v
			continue
		}
		rest = append(rest, kv)
	}
	out.view = strings.Join(rest, "&")
	return out
}

// TestParticipants: GET participants lists every participant of the desk for the operator,
// each once with its newest label: authors, those named only in an aside's audience, and
// those with a live token who never wrote (not a revoked token's, nor another desk's). Any
// other token gets 403 and not a name: an audience tells of an aside.
func TestParticipants(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		testParticipants(t, newFixture(t, st, server.Options{Rate: rate.Inf}))
	})
}

func testParticipants(t *testing.T, f *deskFixture) {
	scribe := transcript.Agent("scribe", "Scribe")
	f.token("eng", scribe)
	f.token("ops", transcript.Agent("elsewhere", "Elsewhere"))
	_, gone, err := token.New("eng", transcript.Agent("gone", "Gone"), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.st.AddToken(t.Context(), gone); err != nil {
		t.Fatal(err)
	}
	if err := f.st.RevokeToken(t.Context(), gone.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	f.post(f.op, map[string]any{"content": "for Ana alone", "audience": []string{"person:ana:Ana"}})
	f.post(f.coder, map[string]any{"content": "renamed", "audience": []string{"agent:triage:Triage the Second"}})

	got := decode[server.ParticipantList](t, f.do("GET", "/v1/desks/eng/participants", f.op, nil), http.StatusOK)
	want := server.ParticipantList{Participants: []transcript.Author{
		transcript.Operator(), transcript.Person("ana", "Ana"),
		transcript.Agent("coder", "Coder"), scribe, transcript.Agent("triage", "Triage the Second"),
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the desk's participants (-want +got):\n%s", diff)
	}
	for _, secret := range []string{f.triage, f.coder} {
		r := f.do("GET", "/v1/desks/eng/participants", secret, nil)
		p := wantProblem(t, r, http.StatusForbidden, "forbidden")
		if strings.Contains(string(r.body), "ana") || strings.Contains(string(r.body), "scribe") {
			t.Errorf("a participant's token is told the desk's participants: %s", r.body)
		}
		if want := "only an operator token may read the desk's participants"; p.Detail != want {
			t.Errorf("the 403's detail is %q, want %q: it names what was asked", p.Detail, want)
		}
	}
	empty := decode[server.ParticipantList](t, f.do("GET", "/v1/desks/none/participants", f.token("none", operator), nil), http.StatusOK)
	if diff := cmp.Diff(server.ParticipantList{Participants: []transcript.Author{transcript.Operator()}}, empty); diff != "" {
		t.Errorf("a desk without rows: %s", diff)
	}
}

// TestElisionLines: POST elision-lines words each elision as transcript view's text does
// (render.ElisionLine, the line render.Text writes), in the order asked; an elision no view
// could give is a 400.
func TestElisionLines(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Rate: rate.Inf})
	f.post(f.op, map[string]any{"content": "a second aside", "audience": []string{"agent:triage", "person:ana:Ana"}})
	f.post(f.op, map[string]any{"content": "between them"})
	f.post(f.op, map[string]any{"content": "a third aside", "audience": []string{"agent:triage"}})
	view := decode[transcript.Projection](t, f.do("GET", "/v1/desks/eng/view", f.coder, nil), http.StatusOK)
	if len(view.Elided) < 2 {
		t.Fatalf("coder's view holds %d elisions, want at least 2", len(view.Elided))
	}
	var text strings.Builder
	if err := render.Text(&text, coder, view.Messages, view.Elided...); err != nil {
		t.Fatal(err)
	}
	got := decode[server.ElisionLines](t, f.do("POST", "/v1/desks/eng/elision-lines", f.coder, map[string]any{"elided": view.Elided}), http.StatusOK)
	if len(got.Lines) != len(view.Elided) {
		t.Fatalf("%d lines for %d elisions", len(got.Lines), len(view.Elided))
	}
	for i, line := range got.Lines {
		if line != render.ElisionLine(view.Elided[i]) || !strings.Contains(text.String(), "\n"+line+"\n") {
			t.Errorf("elision %+v: line %q, want %q, the line of transcript view's text:\n%s", view.Elided[i], line, render.ElisionLine(view.Elided[i]), text.String())
		}
		if strings.Contains(line, "aside") && strings.Contains(line, "launch") {
			t.Errorf("line %q holds an aside's content", line)
		}
	}
	s := f.signIn(f.op)
	if r := f.withCookie("POST", "/v1/desks/eng/elision-lines", s, true, map[string]any{"elided": view.Elided}); r.status != http.StatusOK {
		t.Errorf("the page's session: %d %s", r.status, r.body)
	}
	readers := []transcript.Author{operator, triage}
	for _, e := range []transcript.Elision{
		{From: 0, Through: 3, Count: 1, Readers: readers},
		{From: 4, Through: 3, Count: 1, Readers: readers},
		{From: 3, Through: 3, Count: 2, Readers: readers},
		{From: 3, Through: 3, Count: 0, Readers: readers},
		{From: 3, Through: 3, Count: 1},
	} {
		wantProblem(t, f.do("POST", "/v1/desks/eng/elision-lines", f.coder, map[string]any{"elided": []transcript.Elision{e}}), http.StatusBadRequest, "invalid-request")
	}
}
