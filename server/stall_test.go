package server_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// TestStalledStreamAppends: a stream whose client reads nothing does not hold up appends.
// The same small appends over HTTP are made without a stalled stream and then with one
// whose server writes are blocked (8 MiB of rows went past it, more than the loopback
// connection's buffers hold): every append is answered 201, and another stream on the desk
// receives every row, in order, both times; and the stalled stream is let go once a write
// of it has waited Options.WriteTimeout, while the other stays. The latencies and the heap
// are logged, not asserted (no timing asserts in tests; TestSlowClientHeap bounds the heap).
func TestStalledStreamAppends(t *testing.T) {
	t.Parallel() // its own store and server; it waits out a WriteTimeout
	st := sqliteStore(t)
	e := newEnv(t, st, server.Options{Rate: rate.Inf, TailBytes: 1 << 20, WriteTimeout: 5 * time.Second})
	writer := e.token("eng", triage)
	reader := e.open("/v1/desks/eng/events", e.token("eng", ana))
	const n = 100
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	round := func(name string) []time.Duration {
		latencies := make([]time.Duration, n)
		for i := range n {
			start := time.Now()
			r := e.do("POST", "/v1/desks/eng/messages", writer, map[string]any{"content": fmt.Sprint(name, " ", i)})
			latencies[i] = time.Since(start)
			if r.status != http.StatusCreated {
				t.Fatalf("%s append %d: %d %s", name, i, r.status, r.body)
			}
		}
		for i := range n {
			if ev, ok := reader.next(eventWait); !ok || ev.message(t).Content != fmt.Sprint(name, " ", i) {
				t.Fatalf("%s row %d: the other stream got %+v", name, i, ev)
			}
		}
		return latencies
	}
	free := round("free")
	heapFree := heap()

	req, err := http.NewRequestWithContext(t.Context(), "GET", e.ts.URL+"/v1/desks/eng/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.token("eng", coder))
	stalled, err := e.ts.Client().Do(req)
	if err != nil || stalled.StatusCode != http.StatusOK {
		t.Fatalf("stalled stream: %v %v", stalled, err)
	}
	defer stalled.Body.Close() // never read
	batch := st.(interface {
		AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error
	})
	big := strings.Repeat("x", 16<<10)
	const batches, perBatch = 32, 16 // 512 rows of 16 KiB: 8 MiB, twice Linux's largest send buffer by default
	for b := range batches {
		msgs := make([]transcript.Message, perBatch)
		for i := range msgs {
			msgs[i] = transcript.Message{Author: triage, Content: fmt.Sprint("big ", b, " ", i, " ", big)}
		}
		if err := batch.AppendBatch(t.Context(), "eng", msgs); err != nil {
			t.Fatal(err)
		}
		for i := range perBatch {
			if ev, ok := reader.next(eventWait); !ok || !strings.HasPrefix(ev.message(t).Content, fmt.Sprint("big ", b, " ", i, " ")) {
				t.Fatalf("big row %d/%d: the other stream got %+v", b, i, ev)
			}
		}
	}
	held := round("stalled")
	heapStalled := heap()
	stillOpen := e.metric("transcript_streams_open")

	summary := func(d []time.Duration) string {
		s := slices.Clone(d)
		slices.Sort(s)
		var sum time.Duration
		for _, x := range s {
			sum += x
		}
		return fmt.Sprintf("median %v, p90 %v, max %v, total %v", s[len(s)/2].Round(time.Microsecond),
			s[len(s)*9/10].Round(time.Microsecond), s[len(s)-1].Round(time.Microsecond), sum.Round(time.Millisecond))
	}
	t.Logf("%d appends without a stalled stream: %s; heap %d KiB", n, summary(free), heapFree>>10)
	t.Logf("%d appends with a stalled stream:    %s; heap %d KiB; %v streams open at the end", n, summary(held), heapStalled>>10, stillOpen)

	deadline := time.Now().Add(20 * time.Second)
	for e.metric("transcript_streams_open") != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("%v streams open 20 s after the stalled one stopped reading, want 1: it is never let go", e.metric("transcript_streams_open"))
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.post(writer, map[string]any{"content": "after"})
	reader.wantMessages("after")
}
