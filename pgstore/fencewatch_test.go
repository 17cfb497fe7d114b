package pgstore_test

import (
	"io"
	"net"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestFenceWatchListensAgain: a Store with standbys watches the primary of its own accord;
// when that watch's session is ended under it, the Store says it no longer listens, then
// listens again, and hears of another Store's commits once more.
func TestFenceWatchListensAgain(t *testing.T) {
	t.Parallel()
	st, primary, _ := openRouted(t)
	other := mustOpen(t, primary)
	ctx := t.Context()
	awaitFence := func(what string, want func(fence int64, listening bool) bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if fence, listening := pgstore.Fence(st, "eng"); want(fence, listening) {
				return
			}
			if time.Now().After(deadline) {
				fence, listening := pgstore.Fence(st, "eng")
				t.Fatalf("%s: after 15 s the fence is %d, listening %v", what, fence, listening)
			}
		}
	}
	awaitFence("at Open", func(_ int64, listening bool) bool { return listening })
	m, err := other.Append(ctx, "eng", transcript.Message{Author: alice, Content: "heard of"})
	if err != nil {
		t.Fatal(err)
	}
	awaitFence("after another Store's append", func(fence int64, _ bool) bool { return fence >= int64(m.Seq) })

	var ended bool
	if err := connect(t, primary).QueryRow(ctx, `SELECT bool_or(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the watch's session: %v, %v", ended, err)
	}
	awaitFence("once its session ended", func(_ int64, listening bool) bool { return !listening })
	awaitFence("after it listens again", func(_ int64, listening bool) bool { return listening })
	m, err = other.Append(ctx, "eng", transcript.Message{Author: alice, Content: "heard of again"})
	if err != nil {
		t.Fatal(err)
	}
	awaitFence("after another Store's append, listening again", func(fence int64, _ bool) bool { return fence >= int64(m.Seq) })
}

// TestFenceWatchNoticesSilentLoss: a fence watch whose connection goes silent, without an
// error, stops saying it listens within a few seconds (so reads probe the primary again),
// whether the silence falls while it waits for a notification (its ping goes unanswered)
// or while it queries the primary itself (a desk's deletion is notified, and it reads the
// WAL position).
func TestFenceWatchNoticesSilentLoss(t *testing.T) {
	t.Parallel()
	for _, during := range []string{"wait", "query"} {
		t.Run(during, func(t *testing.T) {
			t.Parallel()
			primary := syncCommit(newReplicatedDatabase(t))
			standby := standbyOf(t, primary)
			var frozen atomic.Bool
			st := mustOpen(t, silentProxy(t, primary, &frozen), pgstore.WithStandbys(standby))
			t.Cleanup(func() { frozen.Store(false) }) // before st closes
			other := mustOpen(t, primary)
			ctx := t.Context()
			for _, desk := range []string{"eng", "gone"} {
				if _, err := other.Append(ctx, desk, transcript.Message{Author: alice, Content: "hi"}); err != nil {
					t.Fatal(err)
				}
			}
			for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(5 * time.Millisecond) {
				if _, listening := pgstore.Fence(st, "eng"); listening {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the Store's watch never listens")
				}
			}
			frozen.Store(true)
			if during == "query" {
				if _, err := other.DeleteDesk(ctx, "gone", false); err != nil {
					t.Fatal(err)
				}
			}
			start := time.Now()
			for {
				if _, listening := pgstore.Fence(st, "eng"); !listening {
					break
				}
				if time.Since(start) > 6*time.Second {
					t.Fatal("6 s after its connection went silent the Store still says its watch listens: reads would skip the probe")
				}
				time.Sleep(10 * time.Millisecond)
			}
		})
	}
}

// silentProxy forwards TCP connections to the PostgreSQL server dsn names (by its unix
// socket); once frozen, it drops every byte clients send, as a network that loses the
// connection without an error does. It returns dsn through the proxy.
func silentProxy(t *testing.T, dsn string, frozen *atomic.Bool) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	sock := q.Get("host") + "/.s.PGSQL." + q.Get("port")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("unix", sock)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(c, s); c.Close() }()
			go func() {
				buf := make([]byte, 32<<10)
				for {
					n, err := c.Read(buf)
					if n > 0 && !frozen.Load() {
						s.Write(buf[:n])
					}
					if err != nil {
						s.Close()
						return
					}
				}
			}()
		}
	}()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	q.Set("host", "127.0.0.1")
	q.Set("port", port)
	u.RawQuery = q.Encode()
	return u.String()
}
