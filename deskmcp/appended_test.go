package deskmcp_test

import (
	"slices"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// TestAppendedOnlyForNewRows: Options.Appended is told of every new row post_message stores,
// and not of a replayed key, which stores none.
func TestAppendedOnlyForNewRows(t *testing.T) {
	st, _ := sqliteStore(t)
	var (
		mu   sync.Mutex
		told []transcript.Sequence
	)
	svc, err := deskmcp.New(st, st, deskmcp.Options{Appended: func(d string, stored transcript.Message) {
		mu.Lock()
		defer mu.Unlock()
		if d != desk {
			t.Errorf("Appended(%q, %d): want desk %q", d, stored.Seq, desk)
		}
		told = append(told, stored.Seq)
	}})
	if err != nil {
		t.Fatal(err)
	}
	a := connect(t, svc, agentA)
	keyed := a.Post(deskmcp.PostMessageArgs{Content: "once", Key: "k1"})
	if again := a.Post(deskmcp.PostMessageArgs{Content: "once", Key: "k1"}); again.Seq != keyed.Seq {
		t.Fatalf("the replay stored row %d, want the keyed row %d", again.Seq, keyed.Seq)
	}
	plain := a.Post(deskmcp.PostMessageArgs{Content: "another"})
	mu.Lock()
	defer mu.Unlock()
	if want := []transcript.Sequence{keyed.Seq, plain.Seq}; !slices.Equal(told, want) {
		t.Errorf("Appended was told of rows %v, want %v: once for each new row, never for the replay", told, want)
	}
}
