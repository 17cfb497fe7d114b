package pgstore_test

import (
	"context"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// freezer is a loopback TCP proxy in front of a PostgreSQL server that can freeze: from
// then on it keeps every connection open and forwards nothing, as a standby behind a
// network partition or on a frozen machine does.
type freezer struct {
	ln     net.Listener
	target func() (net.Conn, error)
	frozen atomic.Bool
	done   chan struct{}
	wg     sync.WaitGroup
}

// newFreezer starts a freezer in front of the server of dsn and returns it with the DSN of
// the same database through it. It stops when tb ends.
func newFreezer(tb testing.TB, dsn string) (*freezer, string) {
	tb.Helper()
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", cfg.Host+"/.s.PGSQL."+strconv.Itoa(int(cfg.Port))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	f := &freezer{ln: ln, done: make(chan struct{}), target: func() (net.Conn, error) { return net.Dial(network, addr) }}
	f.wg.Add(1)
	go f.serve()
	tb.Cleanup(func() { close(f.done); ln.Close(); f.wg.Wait() })

	u, err := url.Parse(dsn)
	if err != nil || u.Scheme == "" {
		tb.Fatalf("the test server's DSN is no URL: %v", err)
	}
	q := u.Query()
	q.Set("host", "127.0.0.1")
	q.Set("port", strconv.Itoa(ln.Addr().(*net.TCPAddr).Port))
	u.Host, u.RawQuery = "", q.Encode()
	return f, u.String()
}

func (f *freezer) serve() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		s, err := f.target()
		if err != nil {
			c.Close()
			continue
		}
		f.wg.Add(2)
		go f.pipe(c, s)
		go f.pipe(s, c)
	}
}

// pipe copies from src to dst until either closes, holding everything back while frozen.
func (f *freezer) pipe(dst, src net.Conn) {
	defer f.wg.Done()
	defer dst.Close()
	go func() { <-f.done; src.Close(); dst.Close() }()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for f.frozen.Load() {
			select {
			case <-f.done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// TestHungStandby: a standby that keeps its connections but stops answering, behind a
// proxy that freezes, costs a read at most the standby's attempt bound (2 s), not the
// caller's whole deadline: the read moves to the primary, the standby is skipped, and the
// next reads, and the rows appended meanwhile, come from the primary at once.
func TestHungStandby(t *testing.T) {
	t.Parallel()
	primary := syncCommit(newReplicatedDatabase(t))
	standby := standbyOf(t, primary)
	proxy, through := newFreezer(t, standby)
	st := mustOpen(t, primary, pgstore.WithStandbys(through), pgstore.WithStandbyWait(200*time.Millisecond))
	log := st.Log("eng")
	first, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "before the freeze"})
	if err != nil {
		t.Fatal(err)
	}
	caughtUp(t, primary, standby)
	if pg, err := log.ReadBefore(t.Context(), 0, 10); err != nil || len(pg.Messages) != 1 {
		t.Fatalf("a read before the freeze: %+v, %v", pg, err)
	}

	proxy.frozen.Store(true)
	// Thawed before the Store closes: pgxpool gives each connection it closes 15 s to say
	// goodbye, which a hung server never answers.
	t.Cleanup(func() { proxy.frozen.Store(false) })
	for i := range 3 {
		ctx, cancel := context.WithTimeout(t.Context(), 8*time.Second)
		began := time.Now()
		pg, err := log.ReadBefore(ctx, 0, 10)
		cancel()
		t.Logf("read %d with the standby hung: %v", i, time.Since(began).Round(time.Millisecond))
		if err != nil || len(pg.Messages) == 0 || pg.Messages[len(pg.Messages)-1].Seq != first.Seq {
			t.Fatalf("read %d with the standby hung: %+v, %v; want the desk's rows from the primary", i, pg, err)
		}
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "while it hangs"})
		if err != nil {
			t.Fatal(err)
		}
		if pg, err := log.ReadBefore(t.Context(), 0, 1); err != nil || len(pg.Messages) != 1 || pg.Messages[0].Seq != m.Seq {
			t.Fatalf("a read after appending row %d with the standby hung: %+v, %v", m.Seq, pg, err)
		}
	}
}
