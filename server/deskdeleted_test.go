package server_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// deskDeleter is the stores' DeleteDesk, as the command line calls it.
type deskDeleter interface {
	DeleteDesk(ctx context.Context, desk string, tokens bool) (int64, error)
}

// TestDeskDeletedElsewhere: desk eng's rows, an aside among them, are in the server's
// memory (a stream on the desk received them) when a second handle on the same database,
// as the command line would, deletes the desk with its tokens and makes it anew with other
// rows, fewer, as many (once the deletion ended the old stream) or more than before. A stream opened with a new token from the desk's start
// carries the new rows only, never an old row's content, and the stream open on the old
// desk ends with a reinitialize event.
func TestDeskDeletedElsewhere(t *testing.T) {
	for _, newRows := range []int{2, 6, 8} {
		t.Run(fmt.Sprintf("%d new rows", newRows), func(t *testing.T) {
			eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
				e := newEnv(t, st, server.Options{Rate: rate.Inf, Heartbeat: time.Hour})
				other := another()
				deleter, ok := other.(deskDeleter)
				if !ok {
					t.Skipf("%T has no DeleteDesk", other)
				}
				author := e.token("eng", coder)
				reader := e.token("eng", triage)
				var old []string
				for i := range 6 {
					body := map[string]any{"content": fmt.Sprintf("[old row %d]", i+1)}
					if i == 3 {
						body = map[string]any{"content": "[the old aside]", "audience": []string{"agent:triage"}}
					}
					old = append(old, body["content"].(string))
					e.post(author, body)
				}
				held := e.open("/v1/desks/eng/events", reader, "Last-Event-ID", "0") // keeps the desk's rows in the server's memory
				for held.event(t).message(t).Seq != 6 {
				}

				// oldEnds checks the old desk's stream ends with a reinitialize event.
				oldEnds := func() {
					t.Helper()
					held.endsReinitialized(t, func(ev sseEvent) bool { return strings.Contains(ev.data, "[new ") })
					if ev, ok := held.next(10 * time.Second); ok {
						t.Fatalf("the old desk's stream goes on after its reinitialize event: %+v", ev)
					}
				}
				if _, err := deleter.DeleteDesk(t.Context(), "eng", true); err != nil {
					t.Fatal(err)
				}
				if newRows == 6 { // as many as before: the deletion's own report ends the old stream
					oldEnds()
				}
				var fresh []string
				for i := range newRows {
					m := transcript.Message{Author: coder, Content: fmt.Sprintf("[new row %d]", i+1)}
					if i == 1 {
						m.Content, m.Audience = "[the new aside]", []transcript.Author{triage}
					}
					if _, _, err := other.AppendNew(t.Context(), "eng", m); err != nil {
						t.Fatal(err)
					}
					fresh = append(fresh, m.Content)
				}
				newReader := e.token("eng", triage)

				s := e.open("/v1/desks/eng/events", newReader, "Last-Event-ID", "0")
				for seq := transcript.Sequence(1); seq <= transcript.Sequence(newRows); seq++ {
					m := s.event(t).message(t)
					for _, c := range old {
						if strings.Contains(m.Content, c) {
							t.Fatalf("a stream of the new desk carries row %d of the deleted desk", m.Seq)
						}
					}
					if m.Seq != seq || m.Content != fresh[seq-1] {
						t.Fatalf("the new desk's stream: row %d with content %q, want row %d with %q", m.Seq, m.Content, seq, fresh[seq-1])
					}
				}

				if newRows != 6 {
					oldEnds()
				}
			})
		})
	}
}
