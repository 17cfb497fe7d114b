package server_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestCorrectionEventIDsAscend: asides around a correction are elided on either side of
// it, never in one elision across it, so a stream's ids ascend and a client resuming from
// any id it received receives nothing twice and loses nothing.
func TestCorrectionEventIDsAscend(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf})
		e := f.env
		e.post(f.op, map[string]any{"content": "secret one", "audience": []string{"agent:triage"}})
		decode[transcript.Message](t, e.do("PATCH", messagePath(f.root.Seq), f.op, map[string]any{"content": "deploy tomorrow?"}), http.StatusCreated)
		e.post(f.op, map[string]any{"content": "secret two", "audience": []string{"agent:triage"}})
		last := e.post(f.op, map[string]any{"content": "after"})
		read := func(from string) []string {
			s := e.open("/v1/desks/eng/events", f.coder, "Last-Event-ID", from)
			defer s.close()
			var got []string
			for {
				ev, ok := s.next(5 * time.Second)
				if !ok {
					t.Fatalf("from %s: the stream ended before row %d, after %v", from, last.Seq, got)
				}
				if ev.event == "" {
					continue
				}
				got = append(got, ev.event+" "+ev.id)
				if ev.id == fmt.Sprint(last.Seq) {
					return got
				}
			}
		}
		all := read(fmt.Sprint(f.aside.Seq))
		prev := 0
		for _, ev := range all {
			id, _ := strconv.Atoi(ev[strings.LastIndex(ev, " ")+1:])
			if id <= prev {
				t.Errorf("ids do not ascend: %v", all)
			}
			prev = id
		}
		for i, ev := range all[:len(all)-1] {
			if rest := read(ev[strings.LastIndex(ev, " ")+1:]); strings.Join(rest, ",") != strings.Join(all[i+1:], ",") {
				t.Errorf("resumed after %q: %v, want %v", ev, rest, all[i+1:])
			}
		}
	})
}

// TestStreamDeliversCorrectionsBeyondBudget: corrections that do not fit in one part of a
// stream's byte budget follow at once, without waiting for a new row.
func TestStreamDeliversCorrectionsBeyondBudget(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf, MaxAnswerBytes: 150})
		e := f.env
		r1 := e.post(f.op, map[string]any{"content": "r1"})
		r2 := e.post(f.op, map[string]any{"content": "r2"})
		var edits []transcript.Message
		for _, r := range []transcript.Message{r1, r2} {
			edits = append(edits, decode[transcript.Message](t, e.do("PATCH", messagePath(r.Seq), f.op, map[string]any{"content": strings.Repeat("a", 100)}), http.StatusCreated))
		}
		s := e.open("/v1/desks/eng/events", f.coder, "Last-Event-ID", fmt.Sprint(r2.Seq))
		defer s.close()
		for _, want := range edits {
			for {
				ev, ok := s.next(5 * time.Second)
				if !ok {
					t.Fatalf("no event: correction %d did not arrive", want.Seq)
				}
				if ev.event == "correction" {
					if ev.id != fmt.Sprint(want.Seq) {
						t.Fatalf("correction %s, want %d", ev.id, want.Seq)
					}
					break
				}
			}
		}
	})
}
