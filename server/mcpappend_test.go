package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
)

// lateReturn is a SQLite store whose appends return a while after they committed, as on a
// loaded machine: the store's report of each commit (its WatchHeads) reaches the server
// before the append returns.
type lateReturn struct{ *sqlitestore.Store }

func (s lateReturn) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	stored, created, err := s.Store.AppendNew(ctx, desk, m)
	time.Sleep(20 * time.Millisecond)
	return stored, created, err
}

// TestMCPAppendsReadNothingBack: posts, edits and redactions through /mcp, with a stream
// open on the desk, reach the stream without the desk's tail reading the store, as those
// through /v1/ do: the tail takes each row from the append, even when the store reported
// the commit before the append returned.
func TestMCPAppendsReadNothingBack(t *testing.T) {
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e := newEnv(t, lateReturn{st}, server.Options{Heartbeat: time.Hour})
	agent := e.mcpAgent(e.token("eng", coder))
	s := e.open("/v1/desks/eng/events", e.token("eng", operator))
	defer s.close()
	// received waits for the stream's event of row seq.
	received := func(seq transcript.Sequence) {
		t.Helper()
		for {
			ev, ok := s.next(5 * time.Second)
			if !ok {
				t.Fatalf("the stream got no row %d within 5 s", seq)
			}
			if ev.id == fmt.Sprint(seq) {
				return
			}
		}
	}
	correct := func(tool string, args any) transcript.Sequence {
		t.Helper()
		var m transcript.Message
		if _, err := agent.Call(tool, args, &m); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		return m.Seq
	}
	received(agent.Post(deskmcp.PostMessageArgs{Content: "the first, as the watch comes up"}).Seq)
	before := e.metric("transcript_tail_store_reads_total")
	var posted []transcript.Sequence
	for i := range 3 {
		posted = append(posted, agent.Post(deskmcp.PostMessageArgs{Content: fmt.Sprintf("post %d", i)}).Seq)
		received(posted[i])
	}
	received(correct("edit_message", deskmcp.EditMessageArgs{Seq: posted[0], Content: "edited"}))
	received(correct("redact_message", deskmcp.RedactMessageArgs{Seq: posted[1]}))
	if reads := e.metric("transcript_tail_store_reads_total") - before; reads != 0 {
		t.Errorf("3 posts, an edit and a redaction through /mcp cost the tail %v store reads, want 0", reads)
	}
}
