package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// TestDeskMadeAnewThenAppended: desk eng's six rows are in the server's memory (a stream on
// the desk received them) when a second handle on the database deletes the desk and makes
// it anew to the same head, six other rows, with the stream's token added again, all before
// the store's watch reads the database (SQLite's poll is an hour); then the server itself
// appends row 7, whose append returns after the store reported it (lateReturn,
// reportedReturn). The open
// stream ends with a reinitialize event and never carries a row of the new desk, and a
// stream opened from the desk's start carries the new desk's seven rows only.
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
		st, another := pgStores(t)
		return newReportedReturn(t, st.(*pgstore.Store)), another
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
			fresh = append(fresh, "[new row 7]")
			e.post(e.token("eng", coder), map[string]any{"content": fresh[6]})

			for {
				ev, ok := held.next(10 * time.Second)
				if !ok {
					t.Fatal("the old desk's stream ended without a reinitialize event")
				}
				if ev.event == "reinitialize" {
					var r server.ReinitializeEvent
					if err := json.Unmarshal([]byte(ev.data), &r); err != nil || r.Reason != "watermark_unavailable" {
						t.Fatalf("reinitialize event %q: %v", ev.data, err)
					}
					break
				}
				if ev.event == "message" {
					t.Fatalf("the old desk's stream carries row %s of the new desk: %s", ev.id, ev.data)
				}
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

// reportedReturn is a pgstore.Store whose AppendNew returns once its own WatchHeads, a
// listener beside the server's, reported the appended row's head, and 20 ms more: the
// server then takes the row after its watch heard what was committed before it (a desk
// deleted and made anew by another process), as lateReturn makes SQLite's append do.
type reportedReturn struct {
	*pgstore.Store
	heads <-chan map[string]transcript.Sequence
}

func newReportedReturn(t *testing.T, st *pgstore.Store) reportedReturn {
	heads, err := st.WatchHeads(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return reportedReturn{st, heads}
}

func (s reportedReturn) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	stored, created, err := s.Store.AppendNew(ctx, desk, m)
	if err != nil {
		return stored, created, err
	}
	for deadline := time.After(5 * time.Second); ; {
		select {
		case h := <-s.heads:
			if h[desk] < stored.Seq {
				continue
			}
		case <-deadline:
		}
		break
	}
	time.Sleep(20 * time.Millisecond)
	return stored, created, err
}
