package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
)

// budgetRow is the content of row i of a budget test: size bytes, its number first.
func budgetRow(i, size int) string {
	s := fmt.Sprintf("row %03d ", i)
	return s + strings.Repeat("x", size-len(s))
}

// postRows appends n rows of size bytes by triage to desk eng, straight to the store, and
// returns them.
func postRows(t *testing.T, st server.Store, n, size int) []transcript.Message {
	t.Helper()
	rows := make([]transcript.Message, n)
	for i := range n {
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: triage, Content: budgetRow(i, size)})
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = m
	}
	return rows
}

// TestViewWithinByteBudget: a view whose messages' content exceeds MaxAnswerBytes drops
// its oldest messages, says how many (dropped), and keeps a thread's root.
func TestViewWithinByteBudget(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{Rate: rate.Inf, MaxAnswerBytes: 350})
		reader := e.token("eng", coder)
		rows := postRows(t, st, 10, 100) // 1000 bytes: the newest 3 fit in 350
		p := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view", reader, nil), http.StatusOK)
		if got, want := seqs(p.Messages), seqs(rows[7:]); got != want || p.Dropped != 7 {
			t.Errorf("channel view: %s, dropped %d; want %s, dropped 7", got, p.Dropped, want)
		}
		if r := e.do("GET", "/v1/desks/eng/view", reader, nil); !strings.Contains(string(r.body), `"dropped":7`) {
			t.Errorf("the view's JSON does not say dropped 7: %.200s", r.body)
		}

		root := rows[0]
		var replies []transcript.Message
		for i := range 6 {
			m, err := st.Append(t.Context(), "eng", transcript.Message{Author: ana, Parent: root.Seq, Content: budgetRow(i, 100)})
			if err != nil {
				t.Fatal(err)
			}
			replies = append(replies, m)
		}
		p = decode[transcript.Projection](t, e.do("GET", fmt.Sprintf("/v1/desks/eng/view?thread=%d", root.Seq), reader, nil), http.StatusOK)
		want := seqs(append([]transcript.Message{root}, replies[4:]...)) // the root's 100 bytes and the newest two replies' 200
		if got := seqs(p.Messages); got != want || p.Dropped != 4 {
			t.Errorf("thread view: %s, dropped %d; want %s (the root kept), dropped 4", got, p.Dropped, want)
		}

		small := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view?window=2", reader, nil), http.StatusOK)
		if small.Dropped != 0 || len(small.Messages) != 2 {
			t.Errorf("a view within the budget: %d messages, dropped %d; want 2, dropped 0", len(small.Messages), small.Dropped)
		}
		if r := e.do("GET", "/v1/desks/eng/view?window=2", reader, nil); strings.Contains(string(r.body), `"dropped"`) {
			t.Errorf("a view that dropped nothing says dropped: %.200s", r.body)
		}
	})
}

// TestDeltaWithinByteBudget: a delta whose messages exceed MaxAnswerBytes delivers its
// oldest ones within it and a next state that commits exactly those; the deltas from each
// next state after it together deliver every row exactly once, in order.
func TestDeltaWithinByteBudget(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{Rate: rate.Inf, MaxAnswerBytes: 250})
		reader := e.token("eng", coder)
		rows := postRows(t, st, 20, 100) // two rows a delta
		state := sharing.Initialized(transcript.Conversation{Desk: "eng"}, 0)
		var got []transcript.Message
		for range 20 {
			r := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", reader, map[string]any{"state": state}), http.StatusOK)
			if r.Delta == nil {
				t.Fatalf("no delta: %+v", r)
			}
			if n := len(r.Delta.Messages); n > 2 || (n == 0 && r.Remaining > 0) {
				t.Fatalf("a delta of %d messages (%d remaining) under a budget of two", n, r.Remaining)
			}
			got = append(got, r.Delta.Messages...)
			if r.Remaining != len(rows)-len(got) {
				t.Errorf("after %d messages the delta says %d remaining, want %d", len(got), r.Remaining, len(rows)-len(got))
			}
			state = r.Delta.Next
			if r.Remaining == 0 {
				break
			}
		}
		if seqs(got) != seqs(rows) {
			t.Errorf("the deltas delivered %s, want every row once: %s", seqs(got), seqs(rows))
		}
		last := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", reader, map[string]any{"state": state}), http.StatusOK)
		if last.Delta == nil || len(last.Delta.Messages) != 0 {
			t.Errorf("the delta after the last part: %+v, want empty", last)
		}
	})
}

// TestStreamWithinByteBudget: a stream over a backlog many times MaxAnswerBytes delivers
// every row once, in order (in parts, each within the budget), and then what comes live.
func TestStreamWithinByteBudget(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{Rate: rate.Inf, MaxAnswerBytes: 250})
		rows := postRows(t, st, 20, 100)
		s := e.open("/v1/desks/eng/events?after=0", e.token("eng", coder))
		var want []string
		for _, m := range rows {
			want = append(want, m.Content)
		}
		s.wantMessages(want...)
		live := e.post(e.token("eng", ana), map[string]any{"content": "live"})
		if got := s.wantMessages("live"); got[0].Seq != live.Seq {
			t.Errorf("live row %d, want %d", got[0].Seq, live.Seq)
		}

		rowStream := e.open("/v1/desks/eng/rows/events?after=0", e.token("eng", operator))
		ids := map[string]bool{}
		for i := range len(rows) + 1 {
			ev, ok := rowStream.next(eventWait)
			wantSeq := live.Seq
			if i < len(rows) {
				wantSeq = rows[i].Seq
			}
			if !ok || ev.event != "row" || ev.id != fmt.Sprint(wantSeq) || ids[ev.id] {
				t.Fatalf("row event %d: %+v, want row %d once", i, ev, wantSeq)
			}
			ids[ev.id] = true
		}
	})
}

// TestOpenAPIBudgetFields: the document describes a view's dropped and a delta's
// remaining.
func TestOpenAPIBudgetFields(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Type        json.RawMessage `json:"type"`
					Description string          `json:"description"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(e.do("GET", "/openapi.json", "", nil).body, &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ schema, field, says string }{
		{"Projection", "dropped", "byte budget"},
		{"DeltaResult", "remaining", "byte budget"},
	} {
		p, ok := doc.Components.Schemas[f.schema].Properties[f.field]
		if !ok || !strings.Contains(string(p.Type), "integer") || !strings.Contains(p.Description, f.says) {
			t.Errorf("%s.%s is documented as %+v (present %v), want an integer whose description says %q", f.schema, f.field, p, ok, f.says)
		}
	}
}
