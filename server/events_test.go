package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

const eventWait = 5 * time.Second

// wantMessages reads the next events, which must be messages with these contents, in this
// order, their ids their Seqs.
func (s *stream) wantMessages(contents ...string) []transcript.Message {
	s.t.Helper()
	var got []transcript.Message
	for _, c := range contents {
		ev, ok := s.next(eventWait)
		if !ok {
			s.t.Fatalf("the stream ended before %q", c)
		}
		m := ev.message(s.t)
		if m.Content != c || ev.id != fmt.Sprint(m.Seq) {
			s.t.Fatalf("event id %s, message %d %q; want %q with its seq as id", ev.id, m.Seq, m.Content, c)
		}
		got = append(got, m)
	}
	return got
}

func TestStream(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		e := f.env

		s := e.open("/v1/desks/eng/events", f.coder)
		e.post(f.op, map[string]any{"content": "one"})
		e.post(f.coder, map[string]any{"content": "mine"}) // its own: never sent
		e.post(f.triage, map[string]any{"content": "two"})
		aside := e.post(f.op, map[string]any{"content": asideText, "audience": []string{"agent:triage"}})
		e.post(f.op, map[string]any{"content": "three"})
		s.wantMessages("one", "two")
		ev, _ := s.next(eventWait)
		if ev.event != "elided" || ev.id != fmt.Sprint(aside.Seq) || strings.Contains(ev.data, "ASIDE") {
			t.Fatalf("event %+v, want the aside elided, id %d, without its content", ev, aside.Seq)
		}
		var el transcript.Elision
		if err := json.Unmarshal([]byte(ev.data), &el); err != nil || el.From != aside.Seq || el.Through != aside.Seq || el.Count != 1 || len(el.Readers) != 2 {
			t.Fatalf("elision %s: %+v, %v", ev.data, el, err)
		}
		last := s.wantMessages("three")[0]
		s.quiet(100 * time.Millisecond)

		// The operator, as coder, sees what coder sees, coder's rows excepted.
		as := e.open("/v1/desks/eng/events?as=agent:coder", f.op)
		e.post(f.coder, map[string]any{"content": "coder again"})
		e.post(f.op, map[string]any{"content": "four"})
		as.wantMessages("four")
		s.wantMessages("four")

		// Reconnect with Last-Event-ID: exactly the rest, also the rows that came while
		// the client was away; the header wins over after=.
		s.close()
		e.post(f.triage, map[string]any{"content": "five"})
		again := e.open("/v1/desks/eng/events?after=1", f.coder, "Last-Event-ID", fmt.Sprint(last.Seq))
		again.wantMessages("four", "five")
		again.quiet(100 * time.Millisecond)

		// after= without the header; the thread's stream holds the thread only.
		from := e.open("/v1/desks/eng/events?after="+fmt.Sprint(last.Seq), f.coder)
		from.wantMessages("four", "five")
		th := e.open(fmt.Sprintf("/v1/desks/eng/events?thread=%d", f.root.Seq), f.triage)
		e.post(f.op, map[string]any{"content": "channel only"})
		e.post(f.op, map[string]any{"content": "in the thread", "parent": f.root.Seq})
		th.wantMessages("in the thread")
		from.wantMessages("channel only")
	})
}

func TestStreamRefusals(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{MaxStreams: 2})
		e := f.env
		missing := wantProblem(t, e.do("GET", "/v1/desks/eng/events?thread=99", f.coder, nil), 404, "not-found")
		hidden := wantProblem(t, e.do("GET", fmt.Sprintf("/v1/desks/eng/events?thread=%d", f.aside.Seq), f.coder, nil), 404, "not-found")
		if missing != hidden {
			t.Errorf("a thread the viewer may not read: %+v; one that does not exist: %+v", hidden, missing)
		}
		wantProblem(t, e.do("GET", "/v1/desks/eng/events", f.coder, nil, "Last-Event-ID", "x"), 400, "invalid-request")
		wantProblem(t, e.do("GET", "/v1/desks/eng/events?as=operator", f.coder, nil), 403, "forbidden")
		wantProblem(t, e.do("GET", "/v1/desks/other/events", f.coder, nil), 404, "not-found")
		wantProblem(t, e.do("GET", "/v1/desks/eng/events", "", nil), 401, "unauthorized")

		a := e.open("/v1/desks/eng/events", f.coder)
		e.open("/v1/desks/eng/events", f.coder)
		r := e.do("GET", "/v1/desks/eng/events", f.coder, nil)
		wantProblem(t, r, 429, "too-many-streams")
		if r.header.Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		e.open("/v1/desks/eng/events", f.triage) // another token's cap is its own
		a.close()
		deadline := time.Now().Add(eventWait)
		for {
			r := e.do("GET", "/v1/desks/eng/events?thread=99", f.coder, nil) // 404 only once a stream is free again
			if r.status == 404 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a closed stream still counts against the cap: %d %s", r.status, r.body)
			}
			time.Sleep(10 * time.Millisecond)
		}
	})
}

func TestHeartbeat(t *testing.T) {
	f := newFixture(t, sqliteStore(t), server.Options{Heartbeat: 20 * time.Millisecond})
	s := f.open("/v1/desks/eng/events", f.coder)
	select {
	case ev := <-s.events:
		if ev.comment == "" || ev.event != "" {
			t.Fatalf("first frame %+v, want a comment", ev)
		}
	case <-time.After(eventWait):
		t.Fatal("no heartbeat")
	}
}

// TestReinitialize: a gap larger than transcript.ScanLimit rows, none of them qualifying,
// appended at once: the stream sends reinitialize and closes.
func TestReinitialize(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		s := f.open("/v1/desks/eng/events", f.coder)
		batch, ok := st.(interface {
			AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error
		})
		if !ok {
			t.Skip("the store has no AppendBatch")
		}
		var msgs []transcript.Message
		for range transcript.ScanLimit + 50 {
			msgs = append(msgs, transcript.Message{Author: triage, Content: "deep in the thread", Parent: f.reply.Seq})
		}
		if err := batch.AppendBatch(t.Context(), "eng", msgs); err != nil {
			t.Fatal(err)
		}
		ev, ok := s.next(eventWait)
		if !ok || ev.event != "reinitialize" || ev.data != `{"reason":"gap_too_large"}` {
			t.Fatalf("event %+v, want reinitialize gap_too_large", ev)
		}
		if ev, ok := s.next(eventWait); ok {
			t.Fatalf("the stream goes on after reinitialize: %+v", ev)
		}
	})
}

// TestStreamBeyondTheHead: a stream from a watermark above the desk's newest row (a
// client's id from another database, or from before a restore) would wait for rows up to
// it that never come and skip those that do: both the view's and the rows' stream send
// reinitialize watermark_unavailable and close.
func TestStreamBeyondTheHead(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{})
		for _, path := range []string{"/v1/desks/eng/events?after=9999", "/v1/desks/eng/rows/events?after=9999"} {
			s := f.open(path, f.op)
			ev, ok := s.next(eventWait)
			if !ok || ev.event != "reinitialize" || ev.data != `{"reason":"watermark_unavailable"}` {
				t.Fatalf("%s on a desk whose head is %d: event %+v, want reinitialize watermark_unavailable", path, f.aside.Seq, ev)
			}
			if ev, ok := s.next(eventWait); ok {
				t.Fatalf("%s goes on after reinitialize: %+v", path, ev)
			}
		}
	})
}

// TestStreamAheadOfTheTail: a stream from a row the store holds but the desk's tail has yet
// to read (the client learned of it elsewhere: its own post, another server) waits for the
// tail rather than reinitialize, and then sends what comes after it.
func TestStreamAheadOfTheTail(t *testing.T) {
	st := sqliteStore(t)
	e := newEnv(t, unwatched{st}, server.Options{PollInterval: time.Hour}) // the tail moves only when the server appends
	opSecret, coderSecret := e.token("eng", operator), e.token("eng", coder)
	first := e.open("/v1/desks/eng/events", coderSecret) // loads the tail at the head: no row; the stream starts there
	unseen, err := st.Append(t.Context(), "eng", transcript.Message{Author: ana, Content: "not through the server"})
	if err != nil {
		t.Fatal(err)
	}
	ahead := e.open(fmt.Sprintf("/v1/desks/eng/events?after=%d", unseen.Seq), coderSecret)
	e.post(opSecret, map[string]any{"content": "after it"})
	ahead.wantMessages("after it")
	first.wantMessages("not through the server", "after it")
}

// TestRowFromAnotherWriter: a row appended through another handle on the database, not
// through the server (another process: the command line, another serve), reaches the
// streams within a second: by the store's Watcher, and by the poll when the store has
// none.
func TestRowFromAnotherWriter(t *testing.T) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
		for _, c := range []struct {
			name  string
			serve server.Store
		}{{"watched", st}, {"polled", unwatched{st}}} {
			t.Run(c.name, func(t *testing.T) {
				if _, ok := c.serve.(server.Watcher); ok != (c.name == "watched") {
					t.Skipf("the store is a Watcher: %v", ok)
				}
				e := newEnv(t, c.serve, server.Options{})
				secret := e.token("eng", coder)
				s := e.open("/v1/desks/eng/events", secret) // it starts at the head: a row appended from now on is news
				other := another()
				content := "from the command line, " + c.name
				start := time.Now()
				if _, err := other.Append(t.Context(), "eng", transcript.Message{Author: ana, Content: content}); err != nil {
					t.Fatal(err)
				}
				s.wantMessages(content)
				if d := time.Since(start); d > time.Second {
					t.Errorf("the row took %v to reach the stream, want within a second", d)
				}
			})
		}
	})
}

// TestOwnRowsAroundAnother: a row another writer commits between two of this server's
// appends reaches the stream between them, whichever way the tail learns of each row
// (taken from the append, read from the store).
func TestOwnRowsAroundAnother(t *testing.T) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
		e := newEnv(t, st, server.Options{})
		s := e.open("/v1/desks/eng/events", e.token("eng", coder))
		time.Sleep(50 * time.Millisecond) // the stream is open and waiting
		other := another()
		triage := e.token("eng", triage)
		for i := range 3 {
			e.post(triage, map[string]any{"content": fmt.Sprint("here ", i)})
			if _, err := other.Append(t.Context(), "eng", transcript.Message{Author: ana, Content: fmt.Sprint("elsewhere ", i)}); err != nil {
				t.Fatal(err)
			}
		}
		e.post(triage, map[string]any{"content": "here again"})
		s.wantMessages("here 0", "elsewhere 0", "here 1", "elsewhere 1", "here 2", "elsewhere 2", "here again")
	})
}

// TestTwoServers: two servers over one database (two serve processes) serve one desk: a
// row appended through one reaches a stream on the other.
func TestTwoServers(t *testing.T) {
	eachStoreWithAnother(t, func(t *testing.T, st server.Store, another func() server.Store) {
		a := newEnv(t, st, server.Options{})
		b := newEnv(t, another(), server.Options{})
		secret := a.token("eng", coder)
		s := b.open("/v1/desks/eng/events", secret) // it starts at the head: a row appended from now on is news
		a.post(a.token("eng", triage), map[string]any{"content": "through a"})
		s.wantMessages("through a")
	})
}

// lossyWatcher is a store whose Watcher is lost at once: its channel closes.
type lossyWatcher struct {
	server.Store
	watches atomic.Int64
}

func (w *lossyWatcher) Watch(ctx context.Context) (<-chan string, error) {
	w.watches.Add(1)
	ch := make(chan string)
	close(ch)
	return ch, nil
}

// TestLostWatch: while the store's watch is lost the server polls, so rows appended
// elsewhere still reach the streams.
func TestLostWatch(t *testing.T) {
	st := &lossyWatcher{Store: sqliteStore(t)}
	e := newEnv(t, st, server.Options{})
	secret := e.token("eng", coder)
	s := e.open("/v1/desks/eng/events", secret) // it starts at the head: a row appended from now on is news
	if _, err := st.Store.Append(t.Context(), "eng", transcript.Message{Author: ana, Content: "while the watch is down"}); err != nil {
		t.Fatal(err)
	}
	s.wantMessages("while the watch is down")
	if st.watches.Load() < 1 {
		t.Error("Watch was never called")
	}
}

// silentWatcher is a store whose Watcher is up but reports nothing: every notification is
// lost, as PostgreSQL's is when the appending connection dies between its commit and its
// NOTIFY. up closes once the server counts the watch as up (silentWatch).
type silentWatcher struct {
	server.Store
	up chan struct{}
}

func newSilentWatcher(st server.Store) silentWatcher {
	return silentWatcher{Store: st, up: make(chan struct{})}
}

func (w silentWatcher) Watch(ctx context.Context) (<-chan string, error) {
	return silentWatch(ctx, w.up), nil
}

// TestLostNotification: a row this server appended reaches its streams even when the
// store's watch, up, never reports it: a PollInterval after the append the tail looks by
// itself.
func TestLostNotification(t *testing.T) {
	st := newSilentWatcher(sqliteStore(t))
	e := newEnv(t, st, server.Options{PollInterval: 50 * time.Millisecond})
	s := e.open("/v1/desks/eng/events", e.token("eng", coder))
	awaitWatchUp(t, st.up)
	e.post(e.token("eng", triage), map[string]any{"content": "not reported"})
	s.wantMessages("not reported")
	if late := e.metric("transcript_tail_late_wakeups_total"); late != 1 {
		t.Errorf("late wake-ups: %v, want 1", late)
	}
}

// flakyTokens is silentWatcher whose Tokens fails while fails is above zero, once a call.
type flakyTokens struct {
	silentWatcher
	fails atomic.Int32
}

func (f *flakyTokens) Tokens(ctx context.Context) ([]token.Token, error) {
	if f.fails.Add(-1) >= 0 {
		return nil, errors.New("the tokens cannot be read just now")
	}
	return f.silentWatcher.Tokens(ctx)
}

// TestTailRefreshFails: a refresh that cannot read the desk's tokens keeps its rows back,
// and the tail tries again a PollInterval later by itself: with the store's watch up,
// nothing else would ask it to.
func TestTailRefreshFails(t *testing.T) {
	st := &flakyTokens{silentWatcher: newSilentWatcher(sqliteStore(t))}
	e := newEnv(t, st, server.Options{PollInterval: 50 * time.Millisecond})
	s := e.open("/v1/desks/eng/events", e.token("eng", coder))
	awaitWatchUp(t, st.up)
	author := e.token("eng", triage)
	st.fails.Store(1)
	e.post(author, map[string]any{"content": "kept back once"})
	s.wantMessages("kept back once")
	if left := st.fails.Load(); left >= 1 {
		t.Errorf("the tokens were never read after the append (%d failures left)", left)
	}
}

// TestFanOut: 100 streams on one desk; each append wakes the desk's tail, which reads the
// new rows from the store once at most (none: over SQLite, a HeadWatcher, it takes the row
// from the append), and every stream gets the row from memory.
func TestFanOut(t *testing.T) {
	const streams = 100
	f := newFixture(t, sqliteStore(t), server.Options{MaxStreams: streams, PollInterval: time.Hour, Rate: rate.Inf})
	var all []*stream
	for range streams {
		all = append(all, f.open("/v1/desks/eng/events", f.coder))
	}
	readsBefore := f.metric("transcript_tail_store_reads_total")
	const appends = 5
	for i := range appends {
		content := fmt.Sprint("fan ", i)
		f.post(f.triage, map[string]any{"content": content})
		var wg sync.WaitGroup
		for _, s := range all {
			wg.Go(func() { s.wantMessages(content) })
		}
		wg.Wait()
	}
	reads := f.metric("transcript_tail_store_reads_total") - readsBefore
	if reads > appends {
		t.Errorf("%v store reads by the tail for %d appends with %d streams, want at most one a wake-up", reads, appends, streams)
	}
	if fb := f.metric("transcript_tail_fallback_reads_total"); fb != 0 {
		t.Errorf("%v reads passed to the store by the tail's log, want 0", fb)
	}
	if open := f.metric("transcript_streams_open"); open != streams {
		t.Errorf("streams open: %v, want %d", open, streams)
	}
	t.Logf("%d appends, %d streams: %v tail store reads", appends, streams, reads)
}

// metric returns the value of an unlabelled metric.
func (e *env) metric(name string) float64 {
	e.t.Helper()
	r := e.do("GET", "/metrics", "", nil)
	for line := range strings.Lines(string(r.body)) {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				e.t.Fatal(err)
			}
			return f
		}
	}
	e.t.Fatalf("no metric %s in\n%s", name, r.body)
	return 0
}

// TestRevokedStream: a stream whose token is revoked ends by its next heartbeat.
func TestRevokedStream(t *testing.T) {
	st := sqliteStore(t)
	e := newEnv(t, st, server.Options{Heartbeat: 20 * time.Millisecond})
	secret, tok, err := token.New("eng", coder, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddToken(t.Context(), tok); err != nil {
		t.Fatal(err)
	}
	s := e.open("/v1/desks/eng/events", secret)
	if err := st.RevokeToken(t.Context(), tok.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(eventWait)
	for {
		select {
		case _, ok := <-s.events:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("the stream of a revoked token is still open")
		}
	}
}

// TestRevokedStreamGetsNoNewRow: on both stores, once a token is revoked in the store (as
// `transcript token revoke` does, behind the server's back), its open streams receive no row
// appended after that, long before any heartbeat: the tail reads the desk's tokens after
// each row it reads, and each stream of the revoked token ends instead of sending. The
// other streams on the desk go on, a second token of the same participant among them,
// made after the tail last read the tokens.
func TestRevokedStreamGetsNoNewRow(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		e := newEnv(t, st, server.Options{Heartbeat: time.Hour})
		op := e.token("eng", transcript.Operator())
		secret, tok, err := token.New("eng", coder, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddToken(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
		revoked := []*stream{e.open("/v1/desks/eng/events", secret), e.open("/v1/desks/eng/events", secret)}
		other := e.open("/v1/desks/eng/events", e.token("eng", ana))
		e.post(op, map[string]any{"content": "before"})
		for _, s := range append(revoked, other) {
			s.wantMessages("before")
		}
		if err := st.RevokeToken(t.Context(), tok.ID, time.Now()); err != nil {
			t.Fatal(err)
		}
		fresh := e.open("/v1/desks/eng/events", e.token("eng", coder))
		e.post(op, map[string]any{"content": "after the revocation"})
		other.wantMessages("after the revocation")
		fresh.wantMessages("after the revocation")
		for i, s := range revoked {
			if ev, ok := s.next(eventWait); ok {
				t.Errorf("stream %d of the revoked token got %+v, want its end", i, ev)
			}
		}
	})
}

// TestStreamOutlivesReadTimeout: behind HTTPServer's http.Server, whose ReadTimeout
// bounds reading a request, a stream stays open past it; and that server's Shutdown ends
// the stream rather than wait for it.
func TestStreamOutlivesReadTimeout(t *testing.T) {
	st := sqliteStore(t)
	srv, err := server.New(st, server.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(srv)
	ts.Config = srv.HTTPServer("127.0.0.1:0")
	ts.Config.ReadTimeout = 100 * time.Millisecond
	ts.Start()
	t.Cleanup(ts.Close)
	e := &env{t: t, st: st, srv: srv, ts: ts}
	secret := e.token("eng", coder)
	s := e.open("/v1/desks/eng/events", secret)
	t.Cleanup(func() { // before the client closes the stream: http.Server.Shutdown ends it
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := ts.Config.Shutdown(ctx); err != nil {
			t.Errorf("http.Server.Shutdown with a stream open: %v", err)
		}
		if _, ok := <-s.events; ok {
			t.Error("the stream goes on after http.Server.Shutdown")
		}
	})
	time.Sleep(300 * time.Millisecond)
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: ana, Content: "late"}); err != nil {
		t.Fatal(err)
	}
	s.wantMessages("late")
}
