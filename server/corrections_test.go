package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// messagePath is the path of row seq of the fixture's desk.
func messagePath(seq transcript.Sequence) string {
	return fmt.Sprintf("/v1/desks/eng/messages/%d", seq)
}

// TestCorrections: PATCH edits and DELETE redacts a row as the token's participant: 201
// with the correction row, 200 with it for a replayed key; a row the participant may not
// read is the 404 of one that does not exist, with the same body; 403 not-author, 409
// redacted, 400 for a correction of a correction or of a blank row and for a body that is
// not strict; as= is refused as on POST; no refusal quotes an aside.
func TestCorrections(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf})
		e := f.env // 1: the operator's root; 2: coder's reply; 3: the operator's aside to triage

		edit := decode[transcript.Message](t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, map[string]any{"content": "yes, after build 77"}), http.StatusCreated)
		if edit.Corrects != f.reply.Seq || !edit.Author.Same(coder) || edit.Content != "yes, after build 77" || edit.Parent != 0 || edit.Redacted {
			t.Errorf("the edit: %+v", edit)
		}
		thread := decode[transcript.Projection](t, e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", f.root.Seq), f.triage, nil), 200)
		if len(thread.Messages) != 2 || thread.Messages[1].Content != "yes, after build 77" || thread.Messages[1].Revised != edit.Seq {
			t.Errorf("the thread after the edit: %+v", thread.Messages)
		}

		// A key names the correction: the same again is a replay, a different one a conflict.
		keyed := map[string]any{"content": "yes, after build 78", "key": "fix-1"}
		first := decode[transcript.Message](t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, keyed), http.StatusCreated)
		again := decode[transcript.Message](t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, keyed), http.StatusOK)
		if first.Seq != again.Seq || again.Content != first.Content {
			t.Errorf("a replayed key: %+v, then %+v", first, again)
		}
		wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, map[string]any{"content": "other", "key": "fix-1"}), http.StatusConflict, "key-conflict")

		// Who may correct what.
		wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.triage, map[string]any{"content": "not mine"}), http.StatusForbidden, "not-author")
		wantProblem(t, e.do("DELETE", messagePath(f.reply.Seq), f.triage, nil), http.StatusForbidden, "not-author")
		wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.op, map[string]any{"content": "the operator edits only its own"}), http.StatusForbidden, "not-author")
		missing := wantProblem(t, e.do("PATCH", messagePath(99), f.coder, map[string]any{"content": "x"}), http.StatusNotFound, "not-found")
		hidden := wantProblem(t, e.do("PATCH", messagePath(f.aside.Seq), f.coder, map[string]any{"content": "x"}), http.StatusNotFound, "not-found")
		hiddenRedaction := wantProblem(t, e.do("DELETE", messagePath(f.aside.Seq), f.coder, nil), http.StatusNotFound, "not-found")
		missingRedaction := wantProblem(t, e.do("DELETE", messagePath(99), f.coder, nil), http.StatusNotFound, "not-found")
		if missing != hidden || hidden != hiddenRedaction || hiddenRedaction != missingRedaction {
			t.Errorf("a row coder may not read gets %+v and %+v, one that does not exist %+v and %+v", hidden, hiddenRedaction, missing, missingRedaction)
		}
		wantProblem(t, e.do("PATCH", messagePath(0), f.coder, map[string]any{"content": "x"}), http.StatusBadRequest, "invalid-request")

		// What is no row to correct, and what is no correction.
		blank, err := e.st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: "  "}) // as an import stores one
		if err != nil {
			t.Fatal(err)
		}
		wantProblem(t, e.do("PATCH", messagePath(edit.Seq), f.coder, map[string]any{"content": "an edit of an edit"}), http.StatusBadRequest, "invalid-message")
		wantProblem(t, e.do("DELETE", messagePath(edit.Seq), f.coder, nil), http.StatusBadRequest, "invalid-message")
		wantProblem(t, e.do("PATCH", messagePath(blank.Seq), f.coder, map[string]any{"content": "now something"}), http.StatusBadRequest, "invalid-message")
		wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, map[string]any{"content": " \n"}), http.StatusBadRequest, "blank")

		// Strict bodies, and no author or viewer but the token's.
		for _, body := range []string{
			`{"content":"x","author":{"type":"operator"}}`,
			`{"content":"x","content":"y"}`,
			`{"Content":"x"}`,
			`{"content":"x","parent":1}`,
			`{"content":"x","redacted":true}`,
			`{"content":"x","key":"k","extra":1}`,
			"{\"content\":\"\xff\"}",
		} {
			wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, body), http.StatusBadRequest, "invalid-request")
		}
		for _, body := range []string{`{"content":"x"}`, `{"key":"a","key":"b"}`, `[]`} {
			wantProblem(t, e.do("DELETE", messagePath(f.reply.Seq), f.coder, body), http.StatusBadRequest, "invalid-request")
		}
		post := e.do("POST", "/v1/desks/eng/messages?as=agent:triage", f.op, map[string]any{"content": "x"})
		for _, r := range []response{
			e.do("PATCH", messagePath(f.root.Seq)+"?as=agent:triage", f.op, map[string]any{"content": "x"}),
			e.do("DELETE", messagePath(f.root.Seq)+"?as=agent:triage", f.op, nil),
		} {
			if got, want := r.status, post.status; got != want || r.problem(t).kind() != post.problem(t).kind() {
				t.Errorf("as= on a correction: %d %s, on POST: %d %s", r.status, r.body, post.status, post.body)
			}
		}

		// The redaction: the row keeps its place with nothing of its content or its edits'.
		redaction := decode[transcript.Message](t, e.do("DELETE", messagePath(f.reply.Seq), f.coder, `{"key":"gone"}`), http.StatusCreated)
		if redaction.Corrects != f.reply.Seq || !redaction.Redacted || redaction.Content != "" {
			t.Errorf("the redaction: %+v", redaction)
		}
		replay := decode[transcript.Message](t, e.do("DELETE", messagePath(f.reply.Seq), f.coder, `{"key":"gone"}`), http.StatusOK)
		if replay.Seq != redaction.Seq {
			t.Errorf("a replayed redaction is row %d, want %d", replay.Seq, redaction.Seq)
		}
		wantProblem(t, e.do("DELETE", messagePath(f.reply.Seq), f.coder, nil), http.StatusConflict, "redacted")
		wantProblem(t, e.do("PATCH", messagePath(f.reply.Seq), f.coder, map[string]any{"content": "back"}), http.StatusConflict, "redacted")
		thread = decode[transcript.Projection](t, e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", f.root.Seq), f.triage, nil), 200)
		if len(thread.Messages) != 2 || thread.Messages[1].Content != "" || !thread.Messages[1].Redacted || thread.Messages[1].Revised != redaction.Seq {
			t.Errorf("the thread after the redaction: %+v", thread.Messages)
		}
		rows := decode[server.RowPage](t, e.do("GET", "/v1/desks/eng/rows", f.op, nil), 200)
		for _, m := range rows.Rows {
			if strings.Contains(m.Content, "build 7") || strings.Contains(m.Content, "yes") {
				t.Errorf("row %d holds erased content after the redaction: %+v", m.Seq, m)
			}
		}

		// The operator redacts any row, an aside it is not listed in among them.
		theirs := e.post(f.coder, map[string]any{"content": "coder's own root"})
		for _, seq := range []transcript.Sequence{f.aside.Seq, theirs.Seq} {
			r := decode[transcript.Message](t, e.do("DELETE", messagePath(seq), f.op, nil), http.StatusCreated)
			if !r.Author.Same(operator) || r.Corrects != seq {
				t.Errorf("the operator's redaction of row %d: %+v", seq, r)
			}
		}
		for _, line := range strings.Split(e.log.String(), "\n") {
			if strings.Contains(line, asideText) || strings.Contains(line, "build 7") {
				t.Errorf("the log holds content: %.300s", line)
			}
		}
	})
}

// nextEvent is the stream's next event that is not a comment, failing when it ends.
func (s *stream) nextEvent() sseEvent {
	s.t.Helper()
	ev, ok := s.next(5 * time.Second)
	if !ok {
		s.t.Fatal("the stream ended")
	}
	return ev
}

// correction decodes a correction event, checking its id is the correction's Seq.
func (ev sseEvent) correction(t *testing.T) transcript.Message {
	t.Helper()
	m := ev.row(t, "correction")
	if ev.id != fmt.Sprint(m.Seq) || !m.IsCorrection() {
		t.Fatalf("correction event id %q for %+v", ev.id, m)
	}
	return m
}

// TestCorrectionEvents: a stream receives event: correction, once, for a correction of a
// row that qualifies for its participant, and none for one that does not (an aside it may
// not read) or that it wrote itself.
func TestCorrectionEvents(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf})
		e := f.env
		coderStream := e.open("/v1/desks/eng/events", f.coder)
		opStream := e.open("/v1/desks/eng/events", f.op)
		root := e.post(f.op, map[string]any{"content": "deploy at 22:00"})
		if m := coderStream.nextEvent().message(t); m.Seq != root.Seq {
			t.Fatalf("coder's stream sent row %d, want %d", m.Seq, root.Seq)
		}
		edit := decode[transcript.Message](t, e.do("PATCH", messagePath(root.Seq), f.op, map[string]any{"content": "deploy at 23:00"}), http.StatusCreated)
		c := coderStream.nextEvent().correction(t)
		if c.Seq != edit.Seq || c.Corrects != root.Seq || c.Content != "deploy at 23:00" {
			t.Errorf("the correction event: %+v, want %+v", c, edit)
		}
		// The aside coder may not read, corrected: nothing for coder; the next row comes next.
		decode[transcript.Message](t, e.do("PATCH", messagePath(f.aside.Seq), f.op, map[string]any{"content": asideText + " (revised)"}), http.StatusCreated)
		next := e.post(f.op, map[string]any{"content": "after"})
		for {
			ev := coderStream.nextEvent()
			if ev.event == "elided" {
				continue // the edit of the aside, a row coder may not read, is no message either
			}
			if m := ev.message(t); m.Seq != next.Seq {
				t.Fatalf("coder's stream sent row %d, want %d", m.Seq, next.Seq)
			}
			break
		}
		coderStream.quiet(300 * time.Millisecond)
		// The operator's stream has none of its own rows, corrections among them.
		opStream.quiet(300 * time.Millisecond)
	})
}

// TestResumedStreamErased: after a redaction, a stream resumed from before the row never
// receives its erased content, nor any of its edits' — also when the desk's tail held the
// row before the redaction.
func TestResumedStreamErased(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf})
		e := f.env
		const secret, edited = "the staging password is PW-1234", "the staging password is PW-5678"
		watching := e.open("/v1/desks/eng/events", f.triage) // the tail holds the rows from here on
		row := e.post(f.coder, map[string]any{"content": secret})
		if m := watching.nextEvent().message(t); m.Content != secret {
			t.Fatalf("the live stream sent %+v", m)
		}
		decode[transcript.Message](t, e.do("PATCH", messagePath(row.Seq), f.coder, map[string]any{"content": edited}), http.StatusCreated)
		watching.nextEvent().correction(t)
		redaction := decode[transcript.Message](t, e.do("DELETE", messagePath(row.Seq), f.coder, nil), http.StatusCreated)
		for _, resume := range []string{"Last-Event-ID", "after"} {
			var s *stream
			if resume == "after" {
				s = e.open(fmt.Sprintf("/v1/desks/eng/events?after=%d", row.Seq-1), f.triage)
			} else {
				s = e.open("/v1/desks/eng/events", f.triage, "Last-Event-ID", fmt.Sprint(row.Seq-1))
			}
			m := s.nextEvent().message(t)
			if m.Seq != row.Seq || m.Content != "" || !m.Redacted || m.Revised != redaction.Seq {
				t.Errorf("resumed with %s: the row is %+v, want it erased", resume, m)
			}
			for done := false; !done; {
				select {
				case ev, ok := <-s.events:
					if !ok {
						done = true
						break
					}
					if strings.Contains(ev.data, "PW-") {
						t.Errorf("resumed with %s: an event holds erased content: %+v", resume, ev)
					}
				case <-time.After(300 * time.Millisecond):
					done = true
				}
			}
			s.close()
		}
	})
}

// TestOpenAPICorrections: the document describes the edit and the redaction with every
// status they answer, their problem types by name, a redaction's body as optional, and
// the stream's correction event.
func TestOpenAPICorrections(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	var doc struct {
		Paths map[string]map[string]struct {
			Description string                     `json:"description"`
			RequestBody *struct{ Required bool }   `json:"requestBody"`
			Responses   map[string]json.RawMessage `json:"responses"`
		} `json:"paths"`
	}
	body := e.do("GET", "/openapi.json", "", nil).body
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	ops := doc.Paths["/v1/desks/{desk}/messages/{seq}"]
	for method, required := range map[string]bool{"patch": true, "delete": false} {
		op, ok := ops[method]
		if !ok {
			t.Errorf("no %s operation on /v1/desks/{desk}/messages/{seq}", method)
			continue
		}
		for _, status := range []string{"200", "201", "400", "401", "403", "404", "409", "429"} {
			if _, ok := op.Responses[status]; !ok {
				t.Errorf("%s: status %s is not documented", method, status)
			}
		}
		for _, kind := range []string{"not-author", "redacted", "not-found", "invalid-message", "key-conflict"} {
			if !strings.Contains(op.Description, kind) {
				t.Errorf("%s: the description names no %s problem: %s", method, kind, op.Description)
			}
		}
		if op.RequestBody == nil || op.RequestBody.Required != required {
			t.Errorf("%s: request body %+v, want required %v", method, op.RequestBody, required)
		}
	}
	events := doc.Paths["/v1/desks/{desk}/events"]["get"]
	if !strings.Contains(events.Description, "event: correction") || !strings.Contains(string(events.Responses["200"]), `"Event correction"`) {
		t.Errorf("the stream's document tells of no correction event: %s", events.Description)
	}
}
