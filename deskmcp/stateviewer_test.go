package deskmcp_test

import (
	"context"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// TestReadDeskStateOfAnotherViewer: the states read_desk keeps in a participant's book name
// the participant, and a book that holds another participant's state (copied there by
// hand, say) is read from a fresh view, never from that state: B never skips what A's state
// holds as accepted.
func TestReadDeskStateOfAnotherViewer(t *testing.T) {
	st, _ := sqliteStore(t)
	ctx := context.Background()
	welcome := appendAs(t, st, transcript.Message{Author: ana, Content: "welcome"})
	a := connect(t, service(t, st), agentA)
	a.Read(deskmcp.ReadDeskArgs{}) // the view
	a.Read(deskmcp.ReadDeskArgs{}) // acknowledges it: a state at its head, A's
	mine := a.Post(deskmcp.PostMessageArgs{Content: "A's post"})
	booked, _, err := st.LoadBook(ctx, desk, agentA)
	if err != nil {
		t.Fatal(err)
	}
	channel := transcript.Conversation{Desk: desk}
	if s, _, ok := booked.Lookup(channel); !ok || s.Viewer != transcript.Agent(agentA.ID, "") {
		t.Fatalf("A's book holds %+v (ok %v), want a state naming A", s, ok)
	}
	if _, err := st.SaveBook(ctx, desk, agentB, booked, 0); err != nil {
		t.Fatal(err)
	}
	news := appendAs(t, st, transcript.Message{Author: ana, Content: "news"})

	b := connect(t, service(t, st), agentB)
	r, _ := b.Read(deskmcp.ReadDeskArgs{})
	if r.Reinitialized != "conversation_changed" || !slices.Equal(seqs(r.Messages), seqs([]transcript.Message{welcome, mine, news})) {
		t.Errorf("B's read over A's state = %+v, want conversation_changed and the whole view", r)
	}
}
