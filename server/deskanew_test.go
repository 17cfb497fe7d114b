package server_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// TestDeskMadeAnewThenAppended: desk eng's six rows are in the server's memory (a stream on
// the desk received them) when a second handle on the database deletes the desk and makes
// it anew to the same head, six other rows, with the stream's token added again; then the
// server itself appends row 7. The open stream ends with a reinitialize event and never
// carries a row of the new desk, and a stream opened from the desk's start carries the new
// desk's seven rows only. On SQLite the store's watch does not read the database before the
// server's append (its poll is an hour): the append tells it, and returns late
// (lateReturn). On PostgreSQL the watch hears the other handle's notifications by itself:
// the server appends once the stream has ended, which shows that the server heard them.
func TestDeskMadeAnewThenAppended(t *testing.T) {
	kinds := []storeKind{{"sqlite", func(t *testing.T) (server.Store, func() server.Store) {
		dir := t.TempDir()
		st, err := sqlitestore.Open(t.Context(), filepath.Join(dir, "desk.db"), sqlitestore.WithWatchInterval(time.Hour))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return lateReturn{st}, func() server.Store { return openSQLite(t, dir) }
	}}, {"postgres", func(t *testing.T) (server.Store, func() server.Store) {
		return pgStores(t)
	}}}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			st, another := k.open(t)
			e := newEnv(t, st, server.Options{Rate: rate.Inf, Heartbeat: time.Hour})
			other := another()
			deleter, ok := other.(deskDeleter)
			if !ok {
				t.Skipf("%T has no DeleteDesk", other)
			}
			author := e.token("eng", coder)
			secret, tok, err := token.New("eng", triage, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			if err := st.AddToken(t.Context(), tok); err != nil {
				t.Fatal(err)
			}
			var old []string
			for i := range 6 {
				old = append(old, fmt.Sprintf("[old row %d]", i+1))
				e.post(author, map[string]any{"content": old[i]})
			}
			held := e.open("/v1/desks/eng/events", secret, "Last-Event-ID", "0")
			for held.event(t).message(t).Seq != 6 {
			}

			if _, err := deleter.DeleteDesk(t.Context(), "eng", true); err != nil {
				t.Fatal(err)
			}
			var fresh []string
			for i := range 6 {
				m := transcript.Message{Author: coder, Content: fmt.Sprintf("[new row %d]", i+1)}
				if _, _, err := other.AppendNew(t.Context(), "eng", m); err != nil {
					t.Fatal(err)
				}
				fresh = append(fresh, m.Content)
			}
			if err := other.AddToken(t.Context(), tok); err != nil { // the stream's token, for the new desk
				t.Fatal(err)
			}
			// ended reads the old desk's stream to its reinitialize event, failing on any row.
			ended := func() { held.endsReinitialized(t, func(sseEvent) bool { return true }) }
			if k.name == "postgres" {
				ended()
			}
			fresh = append(fresh, "[new row 7]")
			e.post(e.token("eng", coder), map[string]any{"content": fresh[6]})
			if k.name != "postgres" {
				ended()
			}

			s := e.open("/v1/desks/eng/events", secret, "Last-Event-ID", "0")
			for seq := transcript.Sequence(1); seq <= 7; seq++ {
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
		})
	}
}
