package server_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// A workload is many writers and many live streams on a few desks of one database, over
// HTTP on loopback, checked at the end against the desks' final rows: every append's key
// names exactly one row, and every stream received exactly what the model of
// streammodel_test.go says, no more, no less, in order. The load test runs it against one
// server; the fault tests against servers that are killed and restarted, or whose database
// is, or two servers at once.
//
// Writers append with keys ("w3-017"), and now and then throw the answer away (the request
// is cancelled right after it is written, or its connection closed before the answer is
// read) and retry the same key and body until an answer comes: 201, or 200 with the same
// row. They retry the same way whatever fails: a refused connection, a 5xx. Streams
// reconnect with Last-Event-ID whenever their connection ends, and some end it on purpose.
// Once the writers are done, an end row by system:end is appended to each desk's channel
// and thread (straight to the store): a stream is done when it receives its conversation's.
//
// The servers answer within loadAnswerBytes, and each writer's first appends are large
// asides to scout (largeRowMin to largeRowMax bytes), more than the budget on every desk
// together: a stream of the operator that connects from the start once they are answered
// (a catch-up stream), and a delta poller of scout's that starts then (deltapoller_test.go),
// get them in parts, whose watermarks must still deliver every row once, in order.

// workloadConfig sizes a workload.
type workloadConfig struct {
	desks   int
	writers int // writer i writes to desk i % desks, as its own participant
	appends int // per writer
	streams int // stream k reads desk k % desks, and one catch-up stream more a desk
	drop    float64
	large   int // per writer: its first appends are large rows
}

// loadAnswerBytes is the byte budget of the load and fault runs' servers
// (Options.MaxAnswerBytes): less than a desk's large rows together.
const loadAnswerBytes = 256 << 10

// A large row's content is between these sizes: more than a stream's batch of events (64
// KiB, so that each goes alone) and over a quarter of loadAnswerBytes, so that a desk's
// four large rows exceed it, and a part holds three.
const (
	largeRowMin = 68 << 10
	largeRowMax = 75 << 10
)

// seedRows is how many rows without a key newWorkload seeds each desk with: a root, a
// reply to it, a blank root, a blank reply and an aside.
const seedRows = 5

// endpoint is where a client finds its server: a base URL that a restart may change.
type endpoint struct{ url atomic.Pointer[string] }

func newEndpoint(url string) *endpoint {
	e := new(endpoint)
	e.set(url)
	return e
}

func (e *endpoint) get() string    { return *e.url.Load() }
func (e *endpoint) set(url string) { e.url.Store(&url) }

// endAuthor writes the end rows: no token is its, so it is no stream's own.
var endAuthor = transcript.System("end", "End")

// endKeys are the keys of a desk's end rows: in the thread, in the channel.
var endKeys = [2]string{"end-thread", "end-channel"}

// Participants on every workload desk besides the operator and the writers.
var workloadExtras = []transcript.Author{
	transcript.Agent("scout", "Scout"), transcript.Agent("critic", "Critic"),
	transcript.Person("ana", "Ana"), transcript.Person("bo", "Bo"),
}

// keyLookup is the stores' lookup of rows by key, which the workload's check reads.
type keyLookup interface {
	LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error)
}

type workload struct {
	cfg    workloadConfig
	st     server.Store // the test's own handle on the database
	client *http.Client
	seed   uint64

	writerAt func(i int) *endpoint // the server writer i posts to
	streamAt func(k int) *endpoint // the server stream k reads from

	desks   []*loadDesk
	writers []*loadWriter
	streams []*liveStream
	pollers []*deltaPoller

	acked    atomic.Int64 // appends answered 201 or 200
	attempts atomic.Int64 // requests sent for appends, dropped ones included
	dropped  atomic.Int64 // answers thrown away on purpose
	failed   atomic.Int64 // attempts that got no answer, or a 5xx
	replays  atomic.Int64 // answers 200
}

// loadDesk is one desk of a workload: its participants' secrets, its seed rows, and the
// rows its writers have been answered with, which later appends reply to.
type loadDesk struct {
	name     string
	secrets  map[string]string      // by participant (Author.String())
	people   []transcript.Author    // everyone but the operator: writers and extras
	root     transcript.Message     // the seed root, the thread of thread streams
	seedHead transcript.Sequence    // the desk's head before any writer starts
	ends     [2]transcript.Sequence // the end rows: in the thread, in the channel

	mu    sync.Mutex
	rows  []transcript.Message // answered rows, in the order answered
	keys  []string
	count atomic.Int64 // len(rows)
	large atomic.Int64 // the large rows among them
}

// largeAnswered reports whether every large row of the desk has been answered.
func (d *loadDesk) largeAnswered(w *workload) bool {
	return d.large.Load() == int64(w.cfg.large*w.cfg.writers/w.cfg.desks)
}

func (d *loadDesk) add(m transcript.Message) {
	d.mu.Lock()
	d.rows = append(d.rows, m)
	d.keys = append(d.keys, m.Key)
	d.mu.Unlock()
	d.count.Add(1)
}

// recent returns up to n of the newest rows answered that reader may read.
func (d *loadDesk) recent(reader transcript.Author, n int) []transcript.Message {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []transcript.Message
	for i := len(d.rows) - 1; i >= 0 && len(out) < n; i-- {
		if d.rows[i].ReadableBy(reader) {
			out = append(out, d.rows[i])
		}
	}
	return out
}

// newWorkload makes the desks of a workload in st: tokens for every participant, three
// seed rows (a root, a reply to it, an aside), and the writers and streams, not started.
// The seed of the writers' and streams' choices is logged (and read from
// TRANSCRIPT_LOAD_SEED when set), so that a failing run can be repeated.
func newWorkload(t *testing.T, st server.Store, cfg workloadConfig) *workload {
	t.Helper()
	w := &workload{cfg: cfg, st: st, seed: rand.Uint64()}
	if s := os.Getenv("TRANSCRIPT_LOAD_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TRANSCRIPT_LOAD_SEED: %v", err)
		}
		w.seed = n
	}
	t.Logf("workload seed %d (TRANSCRIPT_LOAD_SEED repeats it)", w.seed)
	transport := &http.Transport{
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       30 * time.Second,
		ResponseHeaderTimeout: 20 * time.Second,
		DisableCompression:    true,
	}
	t.Cleanup(transport.CloseIdleConnections)
	w.client = &http.Client{Transport: transport}

	ctx := t.Context()
	for d := range cfg.desks {
		desk := &loadDesk{name: fmt.Sprintf("d%d", d), secrets: make(map[string]string)}
		w.desks = append(w.desks, desk)
		add := func(p transcript.Author) {
			secret, tok, err := token.New(desk.name, p, time.Now())
			if err == nil {
				err = st.AddToken(ctx, tok)
			}
			if err != nil {
				t.Fatal(err)
			}
			desk.secrets[p.String()] = secret
		}
		add(transcript.Operator())
		for _, p := range workloadExtras {
			add(p)
			desk.people = append(desk.people, p)
		}
		root, err := st.Append(ctx, desk.name, transcript.Message{Author: transcript.Operator(), Content: "seed root of " + desk.name})
		if err != nil {
			t.Fatal(err)
		}
		desk.root = root
		if _, err := st.Append(ctx, desk.name, transcript.Message{Author: workloadExtras[0], Content: "seed reply", Parent: root.Seq}); err != nil {
			t.Fatal(err)
		}
		// Blank rows, which the service refuses but an import stores: a root and a reply.
		for _, blank := range []transcript.Message{{Author: workloadExtras[0], Content: " \t "}, {Author: workloadExtras[0], Content: "\n", Parent: root.Seq}} {
			if _, err := st.Append(ctx, desk.name, blank); err != nil {
				t.Fatal(err)
			}
		}
		aside, err := st.Append(ctx, desk.name, transcript.Message{Author: transcript.Operator(), Content: "ASIDE seed for scout", Audience: []transcript.Author{workloadExtras[0]}})
		if err != nil {
			t.Fatal(err)
		}
		desk.seedHead = aside.Seq
	}
	for i := range cfg.writers {
		desk := w.desks[i%cfg.desks]
		who := transcript.Agent(fmt.Sprintf("w%d", i), fmt.Sprintf("Writer %d", i))
		if (i/cfg.desks)%2 == 1 { // a desk's writers: an agent, a person, an agent...
			who = transcript.Person(fmt.Sprintf("w%d", i), fmt.Sprintf("Writer %d", i))
		}
		secret, tok, err := token.New(desk.name, who, time.Now())
		if err == nil {
			err = st.AddToken(ctx, tok)
		}
		if err != nil {
			t.Fatal(err)
		}
		desk.secrets[who.String()] = secret
		desk.people = append(desk.people, who)
		w.writers = append(w.writers, &loadWriter{w: w, i: i, desk: desk, who: who, secret: secret,
			rng: rand.New(rand.NewPCG(w.seed, uint64(i)))})
	}

	// Every desk's streams cycle through these viewers: each participant's own token, the
	// operator's, and the operator as others (as=), on the channel and on the seed thread.
	type spec struct {
		token  func(d *loadDesk) transcript.Author
		as     func(d *loadDesk) string
		thread bool
	}
	op := func(*loadDesk) transcript.Author { return transcript.Operator() }
	person := func(n int) func(d *loadDesk) transcript.Author {
		return func(d *loadDesk) transcript.Author { return d.people[n%len(d.people)] }
	}
	name := func(n int) func(d *loadDesk) string {
		return func(d *loadDesk) string { return d.people[n%len(d.people)].String() }
	}
	firstWriter := len(workloadExtras) // where the desk's writers begin in its people
	specs := []spec{
		{token: op},
		{token: person(firstWriter)},
		{token: person(firstWriter + 1)},
		{token: person(0)},
		{token: person(1)},
		{token: person(2)},
		{token: person(3)},
		{token: op, as: name(0)},
		{token: op, as: name(firstWriter)},
		{token: op, as: name(3)},
		{token: person(0), thread: true},
		{token: op, thread: true},
		{token: person(firstWriter + 1), thread: true},
		{token: op, as: name(2), thread: true},
	}
	for k := range cfg.streams {
		desk := w.desks[k%cfg.desks]
		sp := specs[(k/cfg.desks)%len(specs)]
		tokenOf := sp.token(desk)
		s := &liveStream{w: w, k: k, desk: desk, secret: desk.secrets[tokenOf.String()], viewer: tokenOf,
			mode: (k / cfg.desks) % 3, rng: rand.New(rand.NewPCG(w.seed, 1<<32+uint64(k)))}
		if sp.as != nil {
			s.as = sp.as(desk)
			v, err := transcript.ParseAuthor(s.as)
			if err != nil {
				t.Fatal(err)
			}
			s.viewer = v
		}
		if sp.thread {
			s.thread = desk.root.Seq
		}
		if k%5 == 0 {
			s.dropsLeft = 2 // ends its connection on purpose, twice, and reconnects
		}
		w.streams = append(w.streams, s)
	}
	for d, desk := range w.desks {
		k := cfg.streams + d
		w.streams = append(w.streams, &liveStream{w: w, k: k, desk: desk, secret: desk.secrets[transcript.Operator().String()],
			viewer: transcript.Operator(), mode: modeLate, catchUp: true, rng: rand.New(rand.NewPCG(w.seed, 1<<32+uint64(k)))})
		scout := workloadExtras[0]
		w.pollers = append(w.pollers, &deltaPoller{w: w, k: k, desk: desk, secret: desk.secrets[scout.String()], viewer: scout})
	}
	if (largeRowMin*cfg.large*cfg.writers/cfg.desks) <= loadAnswerBytes && cfg.large > 0 {
		t.Fatalf("a desk's %d large rows may fit in the budget of %d bytes: no delta would be split", cfg.large*cfg.writers/cfg.desks, loadAnswerBytes)
	}
	return w
}

// run runs the workload until every writer is done and every stream has received its end
// row, or ctx is done; during runs beside the writers (the faults: it must return once it
// is done with them). It reports every failure on t.
func (w *workload) run(ctx context.Context, t *testing.T, during func(ctx context.Context) error) {
	t.Helper()
	start := time.Now()
	var streams sync.WaitGroup
	for _, s := range w.streams {
		if s.mode == modeLate {
			continue
		}
		// Early streams are connected before any writer starts, so that a stream without
		// after= starts from the seed head.
		ready := make(chan error, 1)
		streams.Go(func() { s.run(ctx, ready) })
		if err := <-ready; err != nil {
			t.Fatalf("stream %d: %v", s.k, err)
		}
	}
	total := int64(w.cfg.writers * w.cfg.appends)
	perDesk := int64(w.cfg.writers/w.cfg.desks) * int64(w.cfg.appends)
	for _, s := range w.streams {
		if s.mode != modeLate {
			continue
		}
		threshold := perDesk/10 + s.rng.Int64N(perDesk*7/10+1)
		streams.Go(func() {
			for s.desk.count.Load() < threshold || (s.catchUp && !s.desk.largeAnswered(w)) {
				select {
				case <-ctx.Done():
					s.fail(fmt.Errorf("%w: %w (not yet connected)", errStopped, ctx.Err()))
					return
				case <-time.After(5 * time.Millisecond):
				}
			}
			recent := s.desk.recent(transcript.Operator(), 10)
			if len(recent) > 0 && !s.catchUp {
				s.from = recent[s.rng.IntN(len(recent))].Seq
			}
			s.run(ctx, nil)
		})
	}

	for _, p := range w.pollers {
		streams.Go(func() { p.run(ctx) })
	}

	var writers sync.WaitGroup
	errs := make(chan error, len(w.writers)+1)
	for _, wr := range w.writers {
		writers.Go(func() {
			if err := wr.run(ctx); err != nil {
				errs <- fmt.Errorf("writer %s: %w", wr.who, err)
			}
		})
	}
	if during != nil {
		writers.Go(func() {
			if err := during(ctx); err != nil {
				errs <- fmt.Errorf("fault: %w", err)
			}
		})
	}
	writers.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	written := time.Since(start)

	// The end rows, straight to the store: the thread's first, so that the channel's is
	// every desk's newest row. They have keys too, so that an append that fails (the
	// database restarting) can be tried again.
	for _, d := range w.desks {
		for i, parent := range []transcript.Sequence{d.root.Seq, 0} {
			end := transcript.Message{Author: endAuthor, Content: "end of " + d.name, Parent: parent, Key: endKeys[i]}
			for {
				m, err := w.st.Append(ctx, d.name, end)
				if err == nil {
					d.ends[i] = m.Seq
					break
				}
				if ctx.Err() != nil {
					t.Fatalf("end row of %s: %v", d.name, err)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
	}
	streams.Wait()
	var events, elisions, connects int
	for _, s := range w.streams {
		events += len(s.events)
		connects += s.connects
		for _, ev := range s.events {
			if ev.eli != nil {
				elisions++
			}
		}
		if s.err != nil {
			t.Errorf("stream %d (%s on %s, thread %d, from %d): %v; %d events, last id %d, %d connections",
				s.k, s.viewer, s.desk.name, s.thread, s.from, s.err, len(s.events), s.last, s.connects)
		}
	}
	var polls, split int
	for _, p := range w.pollers {
		polls += p.polls
		split += p.split
		if p.err != nil {
			t.Errorf("delta poller %d (%s on %s): %v; %d events, state %+v, %d polls", p.k, p.viewer, p.desk.name, p.err, len(p.events), p.state, p.polls)
		}
	}
	t.Logf("%d writers × %d appends in %v (%d requests, %d answers dropped on purpose, %d failed, %d replays); "+
		"%d streams received %d events (%d of them elisions) over %d connections; %d delta pollers %d deltas, %d of them split by the budget; all in %v",
		w.cfg.writers, w.cfg.appends, written.Round(time.Millisecond), w.attempts.Load(), w.dropped.Load(),
		w.failed.Load(), w.replays.Load(), len(w.streams), events, elisions, connects, len(w.pollers), polls, split, time.Since(start).Round(time.Millisecond))
	if got := w.acked.Load(); got != total {
		t.Errorf("%d appends answered, want %d", got, total)
	}
}

// verify checks the database's final rows: one row per key, each the one its writer was
// answered with, every desk under the model's bound; and every stream's events against
// the model.
func (w *workload) verify(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second) // not the run's, which may be over
	defer cancel()
	checked := make(map[string]bool) // desk, viewer, thread: cross-checked with Project
	for _, d := range w.desks {
		rows, err := deskRows(ctx, w.st.Log(d.name))
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) >= transcript.ScanLimit {
			t.Fatalf("desk %s holds %d rows: the model needs fewer than %d", d.name, len(rows), transcript.ScanLimit)
		}
		held, err := w.st.(keyLookup).LookupKeys(ctx, d.name, d.keys)
		if err != nil {
			t.Fatal(err)
		}
		keyed := 0
		for _, m := range rows {
			if m.Key != "" {
				keyed++
			}
		}
		if keyed != len(d.keys)+len(endKeys) || len(held) != len(d.keys) || len(rows) != keyed+seedRows {
			t.Errorf("desk %s: %d rows, %d with a key, %d writers' keys found; want the %d writers' keys and the %d end rows' each one row, and %d seed rows without",
				d.name, len(rows), keyed, len(held), len(d.keys), len(endKeys), seedRows)
		}
		for _, m := range d.rows {
			if !sameRow(m, held[m.Key]) {
				t.Errorf("desk %s key %s: the row stored differs from the one answered (-answered +stored):\n%s", d.name, m.Key, cmp.Diff(m, held[m.Key], cmpopts.EquateEmpty()))
			}
		}
		if last := rows[len(rows)-1].Seq; last != d.ends[1] {
			t.Errorf("desk %s: newest row %d, want the channel's end row %d", d.name, last, d.ends[1])
		}
		bad := 0
		for _, s := range w.streams {
			if s.desk != d || s.err != nil {
				continue
			}
			end := d.ends[1]
			if s.thread != 0 {
				end = d.ends[0]
			}
			if s.through != end {
				t.Errorf("stream %d ended at %d, want its end row %d", s.k, s.through, end)
			}
			key := fmt.Sprint(d.name, s.viewer, s.thread)
			if !checked[key] {
				checked[key] = true
				if err := checkModel(ctx, rows, s.viewer, d.name, s.thread, end); err != nil {
					t.Error(err)
				}
			}
			errs := checkStream(rows, s.viewer, s.thread, s.from, s.through, s.events)
			for i, e := range errs {
				if i == 5 {
					t.Errorf("stream %d: and %d more", s.k, len(errs)-5)
					break
				}
				t.Errorf("stream %d (%s, as=%q, on %s thread %d, from %d, %d connections): %s", s.k, s.viewer, s.as, d.name, s.thread, s.from, s.connects, e)
			}
			if len(errs) > 0 {
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("desk %s: %d streams differ from the model", d.name, bad)
		}
		for _, p := range w.pollers {
			if p.desk == d && p.err == nil {
				p.verify(t, rows)
			}
		}
	}
}

// waitAcked waits until n appends have been answered, or ctx is done.
func (w *workload) waitAcked(ctx context.Context, n int64) error {
	for w.acked.Load() < n {
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d answered appends (%d so far): %w", n, w.acked.Load(), ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
	return nil
}

// errStopped is a writer's or stream's error when ctx ends first.
var errStopped = errors.New("stopped before the end")
