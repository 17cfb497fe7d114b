package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/server"
)

// faultConfig sizes the fault tests' workloads: smaller than the load test's.
func faultConfig() workloadConfig {
	return workloadConfig{desks: 4, writers: 8, appends: loadAppends(100), streams: 48, drop: 0.1, large: 2}
}

// TestServeKilled: the workload against a serve process that is killed (SIGKILL) twice
// while it runs: at 30% of the appends, when a new process starts on the same database and
// the same address, and at 65%, when the next one starts on a new port, which the clients
// are told. Writers retry with the same keys, streams reconnect with Last-Event-ID, and
// still every key names exactly one row and every stream receives exactly the model's
// events; every stream open before the first kill was cut by both.
func TestServeKilled(t *testing.T) {
	for _, k := range childStores {
		t.Run(k.name, func(t *testing.T) {
			st, spec := k.open(t)
			ctx, cancel := context.WithTimeout(t.Context(), loadBound)
			defer cancel()
			kids := newChildren(t, spec)
			current, err := kids.start("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ep := newEndpoint(current.url)
			cfg := faultConfig()
			w := newWorkload(t, st, cfg)
			w.writerAt = func(int) *endpoint { return ep }
			w.streamAt = func(int) *endpoint { return ep }
			total := int64(cfg.writers * cfg.appends)
			var report []string
			w.run(ctx, t, func(ctx context.Context) error {
				for i, at := range []int64{total * 3 / 10, total * 65 / 100} {
					if err := w.waitAcked(ctx, at); err != nil {
						return err
					}
					killedAt := w.acked.Load()
					if err := current.kill(); err != nil {
						return err
					}
					addr := strings.TrimPrefix(current.url, "http://")
					if i == 1 {
						addr = "127.0.0.1:0"
					}
					began := time.Now()
					next, err := kids.start(addr)
					if err != nil {
						return err
					}
					ep.set(next.url)
					report = append(report, fmt.Sprintf("killed %s at %d of %d appends answered; %s listened %v later",
						current.url, killedAt, total, next.url, time.Since(began).Round(time.Millisecond)))
					current = next
				}
				return nil
			})
			for _, line := range report {
				t.Log(line)
			}
			w.verify(t)
			for _, s := range w.streams {
				if s.mode != modeLate && s.err == nil && s.connects < 3 {
					t.Errorf("stream %d connected %d times, want 3 or more: it was open through both kills", s.k, s.connects)
				}
			}
			if t.Failed() {
				t.Log(kids.logs())
			}
		})
	}
}

// TestServeTwoProcesses: the workload against two serve processes over one database, each
// taking half of the writers and half of the streams of every desk: a stream on one
// process gets the rows appended through the other, exactly once, and every key still
// names exactly one row (a retry of a dropped append may reach either process first).
func TestServeTwoProcesses(t *testing.T) {
	for _, k := range childStores {
		t.Run(k.name, func(t *testing.T) {
			st, spec := k.open(t)
			ctx, cancel := context.WithTimeout(t.Context(), loadBound)
			defer cancel()
			kids := newChildren(t, spec)
			var eps [2]*endpoint
			for i := range eps {
				c, err := kids.start("127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				eps[i] = newEndpoint(c.url)
			}
			cfg := faultConfig()
			w := newWorkload(t, st, cfg)
			side := func(n int) int { return (n / cfg.desks) % 2 }
			w.writerAt = func(i int) *endpoint { return eps[side(i)] }
			w.streamAt = func(k int) *endpoint { return eps[side(k)] }
			w.run(ctx, t, nil)
			w.verify(t)

			writerSide := make(map[string]int)
			for _, wr := range w.writers {
				writerSide[wr.who.String()] = side(wr.i)
			}
			var across [2]int // messages a stream on each process got from writers on the other
			for _, s := range w.streams {
				for _, ev := range s.events {
					if ev.msg == nil {
						continue
					}
					if ws, ok := writerSide[ev.msg.Author.String()]; ok && ws != side(s.k) {
						across[side(s.k)]++
					}
				}
			}
			t.Logf("streams on the first process got %d messages appended through the second; on the second, %d through the first", across[0], across[1])
			if across[0] == 0 || across[1] == 0 {
				t.Errorf("messages across the processes: %v, want some each way", across)
			}
			if t.Failed() {
				t.Log(kids.logs())
			}
		})
	}
}

// TestDatabaseRestart: the workload against one server over a PostgreSQL of the test's
// own, which is restarted in immediate mode twice while it runs (every session cut, the
// server recovering as after a crash). The service is not restarted: appends fail for a
// moment and then succeed, streams resume (the store's Watch reconnects; a stream whose
// read failed reconnects), and the outcome is still exactly once per key and per stream.
func TestDatabaseRestart(t *testing.T) {
	pg := pgtest.Own(t, "server")
	st, err := pgstore.Open(t.Context(), pg.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ctx, cancel := context.WithTimeout(t.Context(), loadBound)
	defer cancel()
	e := newEnv(t, st, server.Options{Rate: rate.Inf, MaxStreams: 64, Heartbeat: 3 * time.Second, MaxAnswerBytes: loadAnswerBytes})
	ep := newEndpoint(e.ts.URL)
	cfg := faultConfig()
	w := newWorkload(t, st, cfg)
	w.writerAt = func(int) *endpoint { return ep }
	w.streamAt = func(int) *endpoint { return ep }
	total := int64(cfg.writers * cfg.appends)
	var report []string
	w.run(ctx, t, func(ctx context.Context) error {
		for _, at := range []int64{total * 3 / 10, total * 65 / 100} {
			if err := w.waitAcked(ctx, at); err != nil {
				return err
			}
			acked, failed := w.acked.Load(), w.failed.Load()
			began := time.Now()
			if err := pg.Restart(); err != nil {
				return err
			}
			restarted := time.Since(began)
			// The service recovers by itself: answered appends grow again.
			if err := w.waitAcked(ctx, w.acked.Load()+int64(cfg.writers)); err != nil {
				return err
			}
			report = append(report, fmt.Sprintf("restarted PostgreSQL at %d of %d appends answered, in %v; appends answered again %v after the restart began; %d attempts failed meanwhile",
				acked, total, restarted.Round(time.Millisecond), time.Since(began).Round(time.Millisecond), w.failed.Load()-failed))
		}
		return nil
	})
	for _, line := range report {
		t.Log(line)
	}
	w.verify(t)
	if r := e.do("GET", "/healthz", "", nil); r.status != http.StatusOK {
		t.Errorf("GET /healthz after the restarts: %d %s", r.status, r.body)
	}
	if t.Failed() {
		t.Logf("server log, warnings and errors:\n%s", warnings(e.log.String()))
	}
}

// warnings returns the lines of a server's JSON log at level WARN or ERROR.
func warnings(log string) string {
	var b strings.Builder
	for line := range strings.Lines(log) {
		if strings.Contains(line, `"level":"WARN"`) || strings.Contains(line, `"level":"ERROR"`) {
			b.WriteString(line)
		}
	}
	return b.String()
}
