package server_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/heaptest"
	"github.com/sharedesk/transcript/server"
)

// TestSlowClientHeap: a client that stops reading costs the server a watermark, not a queue:
// while it reads nothing, megabytes of new rows go by, another stream on the desk gets
// every one of them, and the server's heap does not grow with them.
func TestSlowClientHeap(t *testing.T) {
	heaptest.Serial(t)
	st := sqliteStore(t)
	e := newEnv(t, st, server.Options{TailBytes: 1 << 20})
	secret := e.token("eng", coder)

	// The stalled stream: its response is never read past the headers.
	req, err := http.NewRequestWithContext(t.Context(), "GET", e.ts.URL+"/v1/desks/eng/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	stalled, err := e.ts.Client().Do(req)
	if err != nil || stalled.StatusCode != 200 {
		t.Fatalf("stalled stream: %v %v", stalled, err)
	}
	defer stalled.Body.Close()
	reader := e.open("/v1/desks/eng/events", e.token("eng", ana))

	batch := st.(interface {
		AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error
	})
	content := strings.Repeat("x", 16<<10)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	const rounds, perRound = 40, 10 // 400 rows of 16 KiB: 6.4 MiB of content
	var before uint64
	for r := range rounds {
		if r == rounds/4 {
			before = heap() // the stalled connection's buffers are full by now
		}
		msgs := make([]transcript.Message, perRound)
		for i := range msgs {
			msgs[i] = transcript.Message{Author: triage, Content: fmt.Sprint(r, "-", i, content)}
		}
		if err := batch.AppendBatch(t.Context(), "eng", msgs); err != nil {
			t.Fatal(err)
		}
		for i := range perRound {
			ev, ok := reader.next(eventWait)
			if !ok || !strings.HasPrefix(ev.message(t).Content, fmt.Sprint(r, "-", i, "x")) {
				t.Fatalf("round %d row %d: %+v", r, i, ev)
			}
		}
	}
	after := heap()
	growth := int64(after) - int64(before)
	t.Logf("heap %d KiB before, %d KiB after %d KiB of rows went by a stalled stream", before>>10, after>>10, rounds*3/4*perRound*len(content)>>10)
	if growth > 3<<20 {
		t.Errorf("the heap grew by %d KiB while a client read nothing", growth>>10)
	}
}
