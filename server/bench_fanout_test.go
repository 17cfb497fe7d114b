package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// BenchmarkFanOut is issue 11's fan-out target: streams open SSE streams on one desk, each
// a real HTTP/1.1 connection over loopback read by a goroutine of its own that parses the
// events (framing and id; the Message is not decoded); one appender. One op is one append
// (POST, as another participant) and the wait until every stream has received its event.
// streams=0 is the append alone, the part of every op that is no delivery.
//
//	go test -run '^$' -bench BenchmarkFanOut -benchmem ./server
//
// Reported per op, besides time and -benchmem's allocations (client and server both):
// store-reads/append, every read the server asked of its store (rows on any desk's Log, its
// head, token lookups and lists: the POST's own included), counted by benchCountingStore;
// tail-reads/append, the tail's (transcript_tail_store_reads_total); cpu-ns/op, the
// process's CPU time (getrusage: server, clients and the append), and cpu-ns/event, the same
// per event delivered (per op and stream); allocs/event, heap allocations per event
// delivered; p50-ms and p99-ms, from the start of the append's POST to a stream's receipt
// of the event, over every event of the run.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{0, 10, 100, 1000} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			f := newBenchFanOut(b, benchStoreKinds[0].open, n)
			f.op(b) // the first refresh and Prepare of every stream, outside the figures
			reads0, tail0 := f.st.reads(), f.metric(b, "transcript_tail_store_reads_total")
			var ms0 runtime.MemStats
			runtime.ReadMemStats(&ms0)
			cpu0, cpuOK := benchProcessCPU()
			var lat []time.Duration
			for b.Loop() {
				lat = append(lat, f.op(b)...)
			}
			cpu1, cpuOK2 := benchProcessCPU()
			var ms1 runtime.MemStats
			runtime.ReadMemStats(&ms1)
			ops, events := float64(b.N), float64(b.N*n)
			b.ReportMetric(float64(f.st.reads()-reads0)/ops, "store-reads/append")
			b.ReportMetric((f.metric(b, "transcript_tail_store_reads_total")-tail0)/ops, "tail-reads/append")
			if cpuOK && cpuOK2 {
				b.ReportMetric(float64(cpu1-cpu0)/ops, "cpu-ns/op")
			}
			if n == 0 {
				return
			}
			if cpuOK && cpuOK2 {
				b.ReportMetric(float64(cpu1-cpu0)/events, "cpu-ns/event")
			}
			b.ReportMetric(float64(ms1.Mallocs-ms0.Mallocs)/events, "allocs/event")
			slices.Sort(lat)
			b.ReportMetric(benchQuantile(lat, 0.50).Seconds()*1e3, "p50-ms")
			b.ReportMetric(benchQuantile(lat, 0.99).Seconds()*1e3, "p99-ms")
			if fb := f.metric(b, "transcript_tail_fallback_reads_total"); fb != 0 {
				b.Errorf("%v reads passed from the tail's log to the store, want 0", fb)
			}
		})
	}
}

// TestFanOutThousandStreams: with 1,000 streams on one desk (100 with -short), each of 20
// appends costs the store 2 reads of any kind (its POST's token lookup and the tail's one
// read of the desk's tokens, which vouches for every stream's token: the tail takes the row
// from the append; see overtakes for the rare third), reads nothing from the store on any
// stream's behalf, and reaches every stream exactly once; on SQLite and on PostgreSQL.
func TestFanOutThousandStreams(t *testing.T) {
	for _, kind := range benchStoreKinds {
		t.Run(kind.name, func(t *testing.T) { testFanOutThousandStreams(t, kind.open) })
	}
}

func testFanOutThousandStreams(t *testing.T, open func(testing.TB) benchStore) {
	n := 1000
	if testing.Short() {
		n = 100
	}
	f := newBenchFanOut(t, open, n)
	f.op(t) // the tail's first refresh, and the watch coming up, before counting
	const appends = 20
	var total, over int64
	for i := range appends {
		before := f.st.reads()
		f.op(t)
		reads := f.st.reads() - before
		total += reads
		over += max(reads-2, 0)
		if reads > 3 {
			t.Errorf("append %d with %d streams: %d store reads (%d of tokens), want 2, 3 when the commit's report overtook the append", i, n, reads, f.st.tokenReads.Load())
		}
	}
	if over > overtakes {
		t.Errorf("%d appends with %d streams: %d reads past 2 an append, want at most %d", appends, n, over, overtakes)
	}
	if fb := f.metric(t, "transcript_tail_fallback_reads_total"); fb != 0 {
		t.Errorf("%v reads passed from the tail's log to the store, want 0", fb)
	}
	if open := f.metric(t, "transcript_streams_open"); open != float64(n) {
		t.Errorf("streams open: %v, want %d", open, n)
	}
	t.Logf("%d appends, %d streams: %d store reads in all (%.2f an append)", appends, n, total, float64(total)/appends)
}

// overtakes is how many appends of a fan-out test may cost a third store read: the
// store's report of a commit (PostgreSQL's notification, SQLite's poll) can reach the tail
// before the append hands it the row, on a loaded machine, and the tail then reads the row
// back from the store.
const overtakes = 2

// TestFanOutReadsPerAppend: with 10 and 100 streams on one desk, each of 10 appends
// through the server costs the store 2 reads of any kind: its POST's token lookup and the
// tail's one read of the desk's tokens, which vouches for every stream's token. The tail
// takes the row from the append itself, and the store's report of the commit names a head
// the tail holds already, so nothing reads the row back (see overtakes for the rare
// exception); on SQLite and on PostgreSQL.
func TestFanOutReadsPerAppend(t *testing.T) {
	for _, kind := range benchStoreKinds {
		for _, n := range []int{10, 100} {
			t.Run(fmt.Sprintf("%s/streams=%d", kind.name, n), func(t *testing.T) {
				testFanOutReadsPerAppend(t, kind.open, n)
			})
		}
	}
}

func testFanOutReadsPerAppend(t *testing.T, open func(testing.TB) benchStore, n int) {
	f := newBenchFanOut(t, open, n)
	f.op(t) // the tail's first refresh, and the watch coming up, before counting
	const appends = 10
	var over int64
	for i := range appends {
		rows, tokens := f.st.rowReads.Load(), f.st.tokenReads.Load()
		f.op(t)
		rows, tokens = f.st.rowReads.Load()-rows, f.st.tokenReads.Load()-tokens
		over += max(rows+tokens-2, 0)
		if rows+tokens > 3 || tokens > 2 {
			t.Errorf("append %d with %d streams: %d store reads (%d of rows, %d of tokens), want 2, 3 when the commit's report overtook the append", i, n, rows+tokens, rows, tokens)
		}
	}
	if over > overtakes {
		t.Errorf("%d appends with %d streams: %d reads past 2 an append, want at most %d", appends, n, over, overtakes)
	}
}

// benchFanOut is a server on a loopback port over a counting store, with streams open on
// desk "eng" as one agent and an appender as another.
type benchFanOut struct {
	st      *benchCountingStore
	ts      *httptest.Server
	poster  *http.Client
	post    string // the appender's secret
	streams []*benchStream
	epoch   time.Time

	pending atomic.Int64  // streams yet to receive the op's event
	all     chan struct{} // the last of them says so
	failed  chan error    // a stream broke
	closing atomic.Bool   // the test is over: streams end
	timer   *time.Timer
}

// benchStream is one stream's connection and what it received last.
type benchStream struct {
	conn net.Conn
	seq  atomic.Uint64 // the id of the last message event
	at   atomic.Int64  // when it came, since epoch
}

// newBenchFanOut opens n streams on a desk of 1,000 rows of a store open opens. Everything
// is closed when tb ends.
func newBenchFanOut(tb testing.TB, open func(testing.TB) benchStore, n int) *benchFanOut {
	tb.Helper()
	st := &benchCountingStore{benchStore: open(tb)}
	benchFill(tb, st.benchStore, 1000)
	srv, err := server.New(st.served(), server.Options{MaxStreams: n, Rate: rate.Inf, Heartbeat: time.Hour})
	if err != nil {
		tb.Fatal(err)
	}
	f := &benchFanOut{
		st:     st,
		ts:     httptest.NewServer(srv),
		post:   benchToken(tb, st, "eng", transcript.Agent("triage", "Triage")),
		epoch:  time.Now(),
		all:    make(chan struct{}, 1),
		failed: make(chan error, n),
		timer:  time.NewTimer(time.Hour),
	}
	f.poster = f.ts.Client()
	tb.Cleanup(func() {
		f.closing.Store(true)
		for _, s := range f.streams {
			s.conn.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			tb.Errorf("shutdown: %v", err)
		}
		f.ts.Close()
	})
	secret := benchToken(tb, st, "eng", transcript.Agent("coder", "Coder"))
	for range n {
		f.open(tb, secret)
	}
	return f
}

// open opens one stream with a raw connection, reads the response's header, and starts
// the stream's reader.
func (f *benchFanOut) open(tb testing.TB, secret string) {
	tb.Helper()
	conn, err := net.Dial("tcp", f.ts.Listener.Addr().String())
	if err != nil {
		tb.Fatal(err)
	}
	req, err := http.NewRequest("GET", f.ts.URL+"/v1/desks/eng/events", nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	req.Header.Set("Accept", "text/event-stream")
	if err := req.Write(conn); err != nil {
		tb.Fatal(err)
	}
	br := bufio.NewReaderSize(conn, 16<<10)
	res, err := http.ReadResponse(br, req)
	if err != nil {
		tb.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		tb.Fatalf("stream: %s: %s", res.Status, body)
	}
	s := &benchStream{conn: conn}
	f.streams = append(f.streams, s)
	go f.read(s, res.Body)
}

// read parses s's events until the connection ends. On each message event it notes the
// id and the time, and counts the op's event as received.
func (f *benchFanOut) read(s *benchStream, body io.Reader) {
	br := bufio.NewReaderSize(body, 16<<10)
	var (
		message bool
		id      uint64
	)
	fail := func(err error) {
		if !f.closing.Load() {
			f.failed <- err
		}
	}
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			fail(fmt.Errorf("stream: %w", err))
			return
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		switch {
		case len(line) == 0:
			if message {
				s.seq.Store(id)
				s.at.Store(int64(time.Since(f.epoch)))
				switch left := f.pending.Add(-1); {
				case left == 0:
					f.all <- struct{}{}
				case left < 0:
					fail(errors.New("stream: an event no append was waiting for"))
					return
				}
			}
			message, id = false, 0
		case bytes.HasPrefix(line, []byte(":")): // a heartbeat
		case bytes.Equal(line, []byte("event: message")):
			message = true
		case bytes.HasPrefix(line, []byte("id: ")):
			id, err = strconv.ParseUint(string(line[len("id: "):]), 10, 64)
			if err != nil {
				fail(fmt.Errorf("stream: id %q: %w", line, err))
				return
			}
		case bytes.HasPrefix(line, []byte("data: {")):
		default:
			fail(fmt.Errorf("stream: unexpected line %q", line))
			return
		}
	}
}

// op appends one row and waits until every stream has received it; it returns each
// stream's latency, from the POST's start to the event's receipt.
func (f *benchFanOut) op(tb testing.TB) []time.Duration {
	tb.Helper()
	f.pending.Store(int64(len(f.streams)))
	start := time.Since(f.epoch)
	seq := f.appendRow(tb)
	if len(f.streams) == 0 {
		return nil
	}
	f.timer.Reset(30 * time.Second)
	select {
	case <-f.all:
	case err := <-f.failed:
		tb.Fatal(err)
	case <-f.timer.C:
		tb.Fatalf("%d of %d streams still wait for row %d after 30 s", f.pending.Load(), len(f.streams), seq)
	}
	f.timer.Stop()
	lat := make([]time.Duration, len(f.streams))
	for i, s := range f.streams {
		if got := s.seq.Load(); got != seq {
			tb.Fatalf("stream %d received row %d, want %d", i, got, seq)
		}
		lat[i] = time.Duration(s.at.Load()) - start
	}
	return lat
}

// appendRow posts a message to the channel as the appender and returns its sequence.
func (f *benchFanOut) appendRow(tb testing.TB) uint64 {
	tb.Helper()
	req, err := http.NewRequest("POST", f.ts.URL+"/v1/desks/eng/messages", strings.NewReader(`{"content":"a message for every stream"}`))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+f.post)
	req.Header.Set("Content-Type", "application/json")
	res, err := f.poster.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	var m struct {
		Seq uint64 `json:"seq"`
	}
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil || res.StatusCode != http.StatusCreated {
		tb.Fatalf("append: %s: %v", res.Status, err)
	}
	io.Copy(io.Discard, res.Body)
	return m.Seq
}

// metric returns an unlabelled metric of GET /metrics.
func (f *benchFanOut) metric(tb testing.TB, name string) float64 {
	tb.Helper()
	res, err := f.poster.Get(f.ts.URL + "/metrics")
	if err != nil {
		tb.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		tb.Fatal(err)
	}
	for line := range strings.Lines(string(body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				tb.Fatal(err)
			}
			return x
		}
	}
	tb.Fatalf("no metric %s", name)
	return 0
}

// benchQuantile returns the q-quantile of sorted (nearest rank), 0 for none.
func benchQuantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
