package server_test

import (
	"io"
	"net/http"
	"runtime"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/internal/heaptest"
	"github.com/sharedesk/transcript/server"
)

// TestUnreadAnswersHeapBound: readers that never read hold the server to the byte budget,
// not to the desk. Twenty rows of 1 MiB are on the desk, MaxAnswerBytes is 2 MiB; four
// event streams from after=0 (each read for one byte, so that its first part has been
// prepared and written, then never again) and four views of window 2048 (never read) stay
// open. After a GC, the heap holds no more than it did before them plus the fan-out's tail
// (TailBytes) and 4 MiB a reader: twice the budget, for the part an answer holds, its JSON,
// and the writer's buffers (measured: under 1 MiB a reader, the walks holding no more than
// their budget). Without the budget every reader holds the whole desk, 20 MiB and its
// JSON, three times over the bound. The streams' writes are blocked
// (the rows exceed what the loopback connection buffers), and WriteTimeout keeps them
// blocked for the test.
func TestUnreadAnswersHeapBound(t *testing.T) {
	heaptest.Serial(t)
	const (
		rows, rowSize = 20, 1 << 20
		budget        = 2 << 20
		tailBytes     = 32 << 20
		streams       = 4
		views         = 4
		perReader     = 2 * budget
	)
	st := sqliteStore(t)
	e := newEnv(t, st, server.Options{Rate: rate.Inf, MaxStreams: streams, MaxAnswerBytes: budget, TailBytes: tailBytes, WriteTimeout: 5 * time.Minute})
	postRows(t, st, rows, rowSize-64)
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()

	open := func(path string) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), "GET", e.ts.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+e.token("eng", coder))
		res, err := e.ts.Client().Do(req) // returns once the server has begun the body
		if err != nil {
			t.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d", path, res.StatusCode)
		}
		t.Cleanup(func() { res.Body.Close() })
		return res
	}
	for range streams {
		res := open("/v1/desks/eng/events?after=0")
		if _, err := io.ReadFull(res.Body, make([]byte, 1)); err != nil { // the first event has begun: its part was prepared
			t.Fatal(err)
		}
	}
	for range views {
		open("/v1/desks/eng/view?window=2048")
	}
	held := heap()
	bound := before + tailBytes + (streams+views)*perReader
	t.Logf("heap before the readers %d MiB, with them %d MiB; bound %d MiB", before>>20, held>>20, bound>>20)
	if held > bound {
		t.Errorf("with %d readers that never read, the heap grew from %d MiB to %d MiB, over the bound of %d MiB (tail %d MiB and %d MiB a reader)",
			streams+views, before>>20, held>>20, bound>>20, tailBytes>>20, perReader>>20)
	}
}
