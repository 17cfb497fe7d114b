package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/server"
)

// loadBound bounds a load or fault run: past it every client stops and the test fails,
// saying what was missing. A run takes 10-25 s under the race detector on two quiet cores;
// the bound leaves room for a machine busy with other packages' tests (a browser among
// them) and is no timing assertion.
const loadBound = 2 * time.Minute

// loadAppends is n, or two fifths of it under the race detector, which slows SQLite's
// translated C many times over (and everything else several times): 16 writers' 3,200
// appends take 20 s and more under -race on two cores, where 1,280 keep the test, and the
// fault tests that share the workload, to about ten seconds a store.
func loadAppends(n int) int {
	if raceEnabled {
		return n * 2 / 5
	}
	return n
}

// TestLoad: 16 writers append 200 messages each (80 under -race) with keys, about a tenth of them throwing
// the first answer away and retrying, while 200 streams over 8 desks read as their
// participants, the operator and the operator as= others, on the channel and on a thread,
// some reconnecting on purpose; the server answers within loadAnswerBytes, which each
// desk's large rows exceed, and a catch-up stream and a delta poller a desk get them in
// parts. At the end every key names exactly one row, the one its
// writer was answered with, the server created each once, and every stream received exactly
// what the model says: no gap, no duplicate, nothing it may not read, its own rows never,
// the rows it may not read as elisions whose counts add up.
func TestLoad(t *testing.T) {
	cfg := workloadConfig{desks: 8, writers: 16, appends: loadAppends(200), streams: 200, drop: 0.1, large: 2}
	if testing.Short() {
		cfg.appends, cfg.streams = 50, 64
	}
	eachStore(t, func(t *testing.T, st server.Store) {
		ctx, cancel := context.WithTimeout(t.Context(), loadBound)
		defer cancel()
		e := newEnv(t, st, server.Options{Rate: rate.Inf, MaxStreams: 64, Heartbeat: 3 * time.Second, MaxAnswerBytes: loadAnswerBytes})
		w := newWorkload(t, st, cfg)
		ep := newEndpoint(e.ts.URL)
		w.writerAt = func(int) *endpoint { return ep }
		w.streamAt = func(int) *endpoint { return ep }
		w.run(ctx, t, nil)
		w.verify(t)

		// One process: of the attempts of one key, exactly one created the row.
		if created := e.metric(`transcript_appends_total{result="created"}`); created != float64(cfg.writers*cfg.appends) {
			t.Errorf("the server created %v rows, want one per key: %d", created, cfg.writers*cfg.appends)
		}
		// Every stream is closed by its client: the server lets go of every stream and tail.
		deadline := time.Now().Add(10 * time.Second)
		for e.metric("transcript_streams_open") != 0 || e.metric("transcript_tails_open") != 0 {
			if time.Now().After(deadline) {
				t.Errorf("%v streams and %v tails still open after every client left", e.metric("transcript_streams_open"), e.metric("transcript_tails_open"))
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for line := range strings.Lines(e.log.String()) {
			if strings.Contains(line, `"msg":"tail refresh"`) || strings.Contains(line, `"msg":"stream"`) {
				t.Errorf("server log: %s", line)
			}
		}
	})
}
