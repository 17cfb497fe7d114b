package fanout

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
	"github.com/sharedesk/transcript/token"
)

// Hub is the fan-out: one tail per desk that has open streams, made by the first stream on
// the desk and dropped when the last one leaves, and while any tail lives, the one
// goroutine that learns of new rows (the store's Watcher, or the poll) and wakes the tails.
type Hub struct {
	st      Store
	opts    Options
	metrics *Metrics
	log     *slog.Logger

	mu        sync.Mutex
	tails     map[string]*Tail
	appends   map[string]int     // appends this server has begun and not yet handed over (appending), by desk
	stopWatch context.CancelFunc // stops the watch loop; nil while no tail lives
	watching  atomic.Bool        // the store's Watcher is up: it reports every commit
	heads     bool               // the store is a server.HeadWatcher: a tail takes the rows this server appends (tail.take)
	digests   DigestNotes        // the digests stored, for the streams that watch them
}

// NewHub returns the fan-out of st's desks, counting in m. opts hold the service's
// defaults (server.Options).
func NewHub(st Store, opts Options, m *Metrics) *Hub {
	_, heads := st.(headWatcher)
	h := &Hub{st: st, opts: opts, metrics: m, log: opts.Logger, tails: make(map[string]*Tail), appends: make(map[string]int), heads: heads}
	if dw, ok := st.(digestWatcher); ok {
		h.digests.source = h.digestSource(dw)
	}
	return h
}

// Digests returns the notes of the digests stored, which this server's folds and the
// store's DigestWatcher write and the desk's row streams watch.
func (h *Hub) Digests() *DigestNotes { return &h.digests }

// acquire returns desk's tail, making and loading it when the desk has none, for one more
// stream; the stream calls release when it ends. A tail that cannot load is an error,
// and no tail.
func (h *Hub) acquire(ctx context.Context, desk string) (*Tail, error) {
	h.mu.Lock()
	t, ok := h.tails[desk]
	if !ok {
		t = newTail(desk, h.st.Log(desk), h.st, h.opts, h.metrics)
		t.heads, _ = h.st.(headReader)
		t.gone = h.drop
		t.appending = func() bool {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.appends[desk] > 0
		}
		h.tails[desk] = t
		h.metrics.TailsOpen.Add(1)
		if h.stopWatch == nil {
			h.startWatch()
		}
	}
	t.refs++
	h.mu.Unlock()

	t.loadOnce.Do(func() {
		// Not the request's own cancellation: other streams may be waiting on this load.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), t.opts.WriteTimeout)
		defer cancel()
		t.loadErr = t.load(ctx)
	})
	if t.loadErr != nil {
		h.Release(t)
		return nil, t.loadErr
	}
	return t, nil
}

// Release gives back a tail acquire returned. The last release drops the tail, and with the
// last tail the watch loop stops.
func (h *Hub) Release(t *Tail) {
	h.mu.Lock()
	defer h.mu.Unlock()
	t.refs--
	if t.refs > 0 {
		return
	}
	if h.tails[t.desk] == t {
		delete(h.tails, t.desk)
		h.metrics.TailsOpen.Add(-1)
	}
	t.stop()
	if len(h.tails) == 0 && h.stopWatch != nil {
		h.stopWatch()
		h.stopWatch = nil
	}
}

// AcquireCaughtUp is acquire, then tail.catchUp: a tail that finds the desk was deleted
// meanwhile (tail.end) is given back and the desk's next tail taken, a few times at most.
func (h *Hub) AcquireCaughtUp(ctx context.Context, desk string) (*Tail, error) {
	for range 3 {
		t, err := h.acquire(ctx, desk)
		if err != nil {
			return nil, err
		}
		err = t.catchUp(ctx)
		if err == nil && !t.IsEnded() {
			return t, nil
		}
		h.Release(t)
		if err != nil && !errors.Is(err, ErrTailEnded) {
			return nil, err
		}
	}
	return nil, fmt.Errorf("server: desk %q: %w", desk, ErrTailEnded)
}

// drop takes t, a tail that ended, out of the hub, so that the desk's next stream makes a
// new one; the streams holding t give it back as they end (release).
func (h *Hub) drop(t *Tail) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.tails[t.desk] == t {
		delete(h.tails, t.desk)
		h.metrics.TailsOpen.Add(-1)
	}
}

// wake tells desk's tail, when it has one, to look for new rows.
func (h *Hub) wake(desk string) {
	h.mu.Lock()
	t := h.tails[desk]
	h.mu.Unlock()
	if t != nil {
		t.wake()
	}
}

// Appending tells the hub that this server begins an append to desk; the caller calls
// done once the append returned, after Stored when it stored a row. Meanwhile a head
// reported above the rows the desk's tail holds waits for the append's row, which is most
// likely it, instead of a read of the store (tail.update).
func (h *Hub) Appending(desk string) (done func()) {
	h.mu.Lock()
	h.appends[desk]++
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		if h.appends[desk]--; h.appends[desk] <= 0 {
			delete(h.appends, desk)
		}
		t := h.tails[desk]
		h.mu.Unlock()
		if t != nil {
			t.poke()
		}
	}
}

// Stored tells the hub of a new row this process stored in desk: a correction is applied
// to the rows the desk's tail holds at once; over a server.HeadWatcher the tail takes the row
// (tail.take), and otherwise the desk's streams are woken (appended).
func (h *Hub) Stored(desk string, m transcript.Message) {
	if m.IsCorrection() {
		h.Corrected(desk, m)
	}
	if h.heads {
		h.mu.Lock()
		t := h.tails[desk]
		h.mu.Unlock()
		if t != nil {
			t.take(m)
		}
	}
	h.appended(desk, m.Seq)
}

// reported passes desk's head, as a server.HeadWatcher sent it, to the desk's tail, when it has one.
func (h *Hub) reported(desk string, head transcript.Sequence) {
	h.mu.Lock()
	t := h.tails[desk]
	h.mu.Unlock()
	if t != nil {
		t.reportHead(head)
	}
}

// appended tells the hub that this server appended row seq to desk. While the store's
// Watcher is up it will report the row, so the tail is not woken twice for it, which would
// cost a second read; otherwise the tail is woken now, unless it took the row (stored). A
// Watcher's report can still be lost (PostgreSQL's notification is sent after the commit,
// by a connection that may die in between), so a PollInterval later the tail is woken if
// it has not read or taken the row by then: a row this server appended reaches its
// streams late, never not at all.
func (h *Hub) appended(desk string, seq transcript.Sequence) {
	if !h.watching.Load() {
		if !h.heads {
			h.wake(desk)
		}
		return
	}
	time.AfterFunc(h.opts.PollInterval, func() {
		h.mu.Lock()
		t := h.tails[desk]
		h.mu.Unlock()
		if t == nil {
			return
		}
		if _, head := t.Current(); head < seq {
			h.metrics.LateWakeups.Add(1)
			t.wake()
		}
	})
}

// wakeAll wakes every tail.
func (h *Hub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.tails {
		t.wake()
	}
}

// Tail is one desk's tail of new rows, shared by every stream on the desk: on each wake-up
// it reads the desk's new rows from the store once, however many streams wait on it, and
// keeps the newest rows in memory (Options.TailRows and TailBytes), which its Log answers
// from. Streams wait on changed, which is closed and replaced whenever head moves.
//
// With the rows, the tail reads the desk's tokens, once for all its streams, after the rows
// (good): a stream sends nothing its token is no longer good for (recheck), so a token
// revoked before a row was committed never receives that row, however many streams it has
// open and whoever revoked it.
type Tail struct {
	desk    string
	src     transcript.Log // the store's log of the desk
	tokens  token.Store
	opts    Options
	metrics *Metrics

	heads     headReader  // the store's, when it has one (catchUp)
	gone      func(*Tail) // takes the tail out of its hub (end)
	appending func() bool // this server has an append to the desk under way (hub.appending)
	refs      int         // streams holding the tail; under hub.mu
	loadOnce  sync.Once
	loadErr   error

	refreshing sync.Mutex    // held by a refresh: run's, or catchUp's
	erased     atomic.Uint64 // redactions applied, in all (noteErasure); written under mu

	writersMu sync.Mutex
	writers   map[*PartWriter]struct{} // the streams on the desk (addWriter)

	pokes    chan struct{} // a wake-up is pending (capacity 1: wake-ups coalesce)
	mustRead atomic.Bool   // a wake-up asks for a read of the store (wake)
	done     chan struct{} // closed by stop
	stopO    sync.Once

	mu       sync.RWMutex
	rows     []transcript.Message     // every row of the log from rows[0].Seq to head, ascending, as read or last copied (patches: revised since)
	bytes    int                      // the content, keys and labels of rows
	start    bool                     // rows begin at the log's oldest row: nothing is older
	head     transcript.Sequence      // the newest row read (0 while the log was empty)
	good     map[[32]byte]token.Token // the desk's tokens, by hash, as read after the rows
	pending  []transcript.Message     // corrections this server appended above head (hub.corrected)
	patches  []storage.Revision       // what corrections changed in rows since they were copied, ascending Target; never written in place
	erasures []erasure                // the newest redactions applied, oldest first (noteErasure)
	own      []transcript.Message     // rows this server appended, for the next update to take (take)
	reported transcript.Sequence      // the newest head a server.HeadWatcher sent (reportHead)
	watched  bool                     // a server.HeadWatcher sent a head: reported holds it
	deleted  bool                     // a server.HeadWatcher sent 0 above rows held: the desk was deleted (reportHead)
	ended    bool                     // the desk was deleted since the rows were read: the tail holds nothing (end)
	changed  chan struct{}
}

func newTail(desk string, src transcript.Log, tokens token.Store, opts Options, m *Metrics) *Tail {
	return &Tail{
		desk: desk, src: src, tokens: tokens, opts: opts, metrics: m,
		writers: make(map[*PartWriter]struct{}),
		pokes:   make(chan struct{}, 1),
		done:    make(chan struct{}),
		changed: make(chan struct{}),
	}
}

// load reads the newest rows of the desk, up to the tail's budget, and starts the
// goroutine that refreshes the tail on each wake-up.
func (t *Tail) load(ctx context.Context) error {
	var (
		desc  []transcript.Message // newest first
		bytes int
	)
	p := transcript.NewPager(t.src, 0)
	for rows, err := range p.Pages(ctx, min(transcript.PageSize, t.opts.TailRows)) {
		if err != nil {
			return t.readError(p, err)
		}
		for _, m := range rows {
			desc = append(desc, m)
			bytes += rowBytes(&m)
		}
		if len(desc) >= t.opts.TailRows || bytes >= t.opts.TailBytes {
			break
		}
		p.Want(t.opts.TailRows - len(desc))
	}
	t.metrics.TailReads.Add(uint64(p.Reads()))
	start := p.Done() // the rows reach the log's start: nothing is older
	good, err := t.readTokens(ctx)
	if err != nil {
		return err
	}
	t.mu.Lock()
	t.good = good
	t.rows = reversed(desc)
	t.bytes = bytes
	t.start = start
	if len(t.rows) > 0 {
		t.head = t.rows[len(t.rows)-1].Seq
	}
	t.reported = max(t.reported, t.head) // a head reported lower is a desk deleted since
	t.applyPending(nil)                  // a correction this server appended while the rows were read
	t.trim()
	t.mu.Unlock()
	go t.run()
	return nil
}

// run updates the tail on each wake-up until stop.
func (t *Tail) run() {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-t.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	for {
		select {
		case <-t.done:
			return
		case <-t.pokes:
			t.refreshing.Lock()
			err := t.update(ctx)
			t.refreshing.Unlock()
			if err != nil && ctx.Err() == nil {
				t.opts.Logger.Error("tail refresh", slog.String("desk", t.desk), slog.String("error", err.Error()))
				// The rows it could not take wait for the next refresh: while the store's
				// Watcher is up nothing else may come to ask for one.
				time.AfterFunc(t.opts.PollInterval, t.wake)
			}
		}
	}
}

// wake asks the tail to read the store for new rows; wake-ups that come while one is
// pending are one.
func (t *Tail) wake() {
	t.mustRead.Store(true)
	t.poke()
}

// poke asks the tail to update (update): to take the rows this server appended, and to
// read the store when a head was reported that it does not hold.
func (t *Tail) poke() {
	select {
	case t.pokes <- struct{}{}:
	default:
	}
}

// take gives the tail m, a row this server appended, which its next update takes without
// reading it back when it is the desk's next row.
func (t *Tail) take(m transcript.Message) {
	m.Audience = slices.Clone(m.Audience) // the row is the tail's, not the caller's
	t.mu.Lock()
	t.own = append(t.own, m)
	t.mu.Unlock()
	t.poke()
}

// reportHead tells the tail the desk's newest Seq, as a server.HeadWatcher sent it. A head of
// 0 when one above was reported before, or the tail held rows when it loaded, is the desk
// deleted since, which a server.HeadWatcher sends before any head of a desk made anew under
// its name: the tail ends (update), whatever the new desk holds. Another head lower than
// one reported before is a report sent before the tail loaded: the tail reads the store.
func (t *Tail) reportHead(head transcript.Sequence) {
	t.mu.Lock()
	switch {
	case head == 0 && max(t.reported, t.head) > 0:
		t.deleted = true
	case head < t.reported:
		t.mustRead.Store(true)
	}
	t.reported, t.watched = head, true
	t.mu.Unlock()
	t.poke()
}

// update brings the tail up to date after a wake-up; t.refreshing is held. A desk reported
// deleted ends the tail (end). It takes the rows this server appended (take) when they are
// the desk's next rows, after it read the desk's tokens, and the store need not be read:
// nothing asked for a read (wake), and no head was reported above the rows then held.
// Otherwise it refreshes from the store — but while an append of this server is under way
// (hub.appending), a head reported above the rows held waits for that append's row, which
// is most likely it: the append's end pokes the tail again.
func (t *Tail) update(ctx context.Context) error {
	t.mu.Lock()
	own, deleted := t.own, t.deleted
	t.own = nil
	t.mu.Unlock()
	if deleted {
		t.end()
		return nil
	}
	if t.mustRead.Swap(false) {
		return t.refresh(ctx)
	}
	if took, err := t.takeOwn(ctx, own); err != nil || !took {
		if err != nil {
			t.mustRead.Store(true) // the retry (run) reads
			return err
		}
		return t.refresh(ctx)
	}
	t.mu.RLock()
	behind := t.watched && t.reported > t.head
	t.mu.RUnlock()
	if behind && !t.appending() {
		return t.refresh(ctx)
	}
	return nil
}

// takeOwn takes own, rows this server appended, into the rows held, and reports whether it
// could: those the tail holds already are left out, and the rest must follow the head
// without a gap (else another process committed rows between: a refresh reads them). It
// reads the desk's tokens first, after the rows committed, as refresh does. t.refreshing is
// held.
//
// A row appended to a desk deleted and made anew to the head the tail holds joins the rows
// held when it is taken before the server.HeadWatcher's report of the deletion; the report
// then ends the tail (reportHead).
func (t *Tail) takeOwn(ctx context.Context, own []transcript.Message) (bool, error) {
	if len(own) == 0 {
		return true, nil
	}
	slices.SortFunc(own, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
	t.mu.RLock()
	head, ended := t.head, t.ended
	t.mu.RUnlock()
	if ended {
		return true, nil
	}
	fresh := slices.DeleteFunc(own, func(m transcript.Message) bool { return m.Seq <= head })
	if len(fresh) == 0 {
		return true, nil
	}
	bytes := 0
	for i := range fresh {
		if fresh[i].Seq != head+transcript.Sequence(i)+1 {
			return false, nil
		}
		bytes += rowBytes(&fresh[i])
	}
	good, err := t.readTokens(ctx) // after the rows: a revocation committed before them is seen
	if err != nil {
		return false, err
	}
	t.mu.Lock()
	t.hold(good, fresh, bytes)
	return true, nil
}

func (t *Tail) stop() { t.stopO.Do(func() { close(t.done) }) }

// catchUp makes the tail hold every row committed to the desk before it was called, by
// this process or any other: when the store's newest row of the desk is not the tail's
// head, it refreshes the tail at once (after a refresh under way, if one is). A head other
// than the tail's may be a desk deleted and made anew: the refresh ends the tail when it is
// (end), and catchUp returns ErrTailEnded. A desk deleted and made anew to the tail's head
// is the refresh's to find, woken by the deletion's report (Watcher) or the poll. A stream calls
// it before it serves anything from the tail, so that a stream opened or resumed after a
// correction committed, wherever, never serves what the correction replaced or erased.
// The store tells its head with one small read (server.HeadReader); a store without one reads
// its newest row.
func (t *Tail) catchUp(ctx context.Context) error {
	newest, err := t.newest(ctx)
	if err != nil {
		return err
	}
	if _, head := t.Current(); head == newest {
		return t.endedError()
	}
	t.refreshing.Lock()
	defer t.refreshing.Unlock()
	if _, head := t.Current(); head == newest { // the refresh under way read it
		return t.endedError()
	}
	if err := t.refresh(ctx); err != nil {
		return err
	}
	return t.endedError()
}

// ErrTailEnded is the error of a tail that ended (tail.end): its desk was deleted.
var ErrTailEnded = errors.New("server: the desk was deleted since its rows were read")

// endedError returns ErrTailEnded once the tail ended, else nil.
func (t *Tail) endedError() error {
	if t.IsEnded() {
		return ErrTailEnded
	}
	return nil
}

// IsEnded reports whether the tail ended (end).
func (t *Tail) IsEnded() bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.ended
}

// end drops everything the tail holds of the desk (rows, corrections, redactions, tokens),
// for a desk deleted since they were read, wakes its streams, which end with a reinitialize
// event, stops the tail's refreshes and takes it out of its hub; t.refreshing is held. An
// ended tail reads nothing more: its log answers ErrTailEnded.
func (t *Tail) end() {
	t.mu.Lock()
	if t.ended {
		t.mu.Unlock()
		return
	}
	t.ended = true
	t.rows, t.patches, t.pending, t.erasures, t.good = nil, nil, nil, nil, nil
	t.bytes, t.start = 0, false
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	t.stop()
	if t.gone != nil {
		t.gone(t)
	}
}

// newest returns the Seq of the desk's newest row in the store, 0 for none.
func (t *Tail) newest(ctx context.Context) (transcript.Sequence, error) {
	if t.heads != nil {
		head, err := t.heads.Head(ctx, t.desk)
		if err != nil {
			return 0, fmt.Errorf("server: desk %q: reading its head: %w", t.desk, err)
		}
		return head, nil
	}
	page, err := t.src.ReadBefore(ctx, 0, 1)
	if err != nil {
		return 0, fmt.Errorf("server: desk %q: reading its newest row: %w", t.desk, err)
	}
	if len(page.Messages) == 0 {
		return 0, nil
	}
	return page.Messages[0].Seq, nil
}

// refreshReadSize is the limit of a refresh's first read: most wake-ups find a row or a few.
const refreshReadSize = 16

// refresh reads the rows newer than head from the store — one read for up to 15 new rows,
// growing reads for more — appends them and wakes the streams; t.refreshing is held. When
// the store's row at head is not the one the tail holds (sameRow), or the store has none,
// the desk was deleted since the tail read its rows: refresh ends the tail (end). A desk
// deleted and made anew, between two refreshes, to the same head with a row at head like
// the one deleted (same author, key, time, content and audience) is not told apart.
func (t *Tail) refresh(ctx context.Context) error {
	t.metrics.Wakeups.Add(1)
	t.mu.RLock()
	head, ended := t.head, t.ended
	t.mu.RUnlock()
	if ended {
		return nil
	}

	var (
		fresh   []transcript.Message // newest first, all above head
		crossed bool                 // a row at or below head was reached: fresh joins the rows held
		gone    bool                 // the store's row at head is not the tail's: the desk was deleted
		bytes   int
	)
	p := transcript.NewPager(t.src, 0)
	for rows, err := range p.Pages(ctx, refreshReadSize) {
		if err != nil {
			return t.readError(p, err)
		}
		for _, m := range rows {
			if m.Seq <= head {
				crossed = true
				if !t.holdsRow(&m, head) {
					gone = true
				}
				break
			}
			fresh = append(fresh, m)
			bytes += rowBytes(&m)
		}
		if !crossed && p.Done() { // the log's start: nothing older is missing
			crossed = true
			gone = head > 0 // and row head with it
		}
		if crossed || len(fresh) >= t.opts.TailRows || bytes >= t.opts.TailBytes {
			break
		}
	}
	t.metrics.TailReads.Add(uint64(p.Reads()))
	if !crossed && head > 0 { // the row at head was not read: read it, to compare
		page, err := t.src.ReadBefore(ctx, head+1, 1)
		t.metrics.TailReads.Add(1)
		if err != nil {
			return fmt.Errorf("server: desk %q: reading its rows: %w", t.desk, err)
		}
		gone = len(page.Messages) == 0 || !t.holdsRow(&page.Messages[0], head)
	}
	if gone {
		t.end()
		return nil
	}
	if len(fresh) == 0 {
		return nil
	}
	good, err := t.readTokens(ctx) // after the rows: a revocation committed before them is seen
	if err != nil {
		return err // the rows wait for a refresh that can vouch for them
	}
	t.mu.Lock()
	if !crossed { // more new rows than the budget: what is held no longer joins them
		t.rows, t.patches, t.bytes, t.start = nil, nil, 0, false
	}
	t.hold(good, reversed(fresh), bytes)
	return nil
}

// hold takes fresh, rows newer than the head in ascending Seq of bytes in all, into the rows
// held, with good, the desk's tokens read after them; applies the corrections waiting for
// them; wakes the streams; and unlocks t.mu, which the caller holds. It then cuts short the
// writes of rows that fresh's redactions erase: one committed elsewhere may have had its
// answer sent before the tail read it, so it does not wait for them.
func (t *Tail) hold(good map[[32]byte]token.Token, fresh []transcript.Message, bytes int) {
	t.good = good
	t.rows = append(t.rows, fresh...)
	t.bytes += bytes
	t.head = fresh[len(fresh)-1].Seq
	t.applyPending(t.rows[len(t.rows)-len(fresh):])
	t.trim()
	close(t.changed)
	t.changed = make(chan struct{})
	t.mu.Unlock()
	t.stopWriting(redactions(fresh))
}

// holdsRow reports whether m, the store's newest row at or below head, the tail's head
// when the refresh began, is the row the tail holds there (sameRow): false for a row below
// head, since a desk's rows are numbered without gaps, and true when the tail no longer
// holds row head. Rows this process appended meanwhile may have moved the tail's head past
// head: they are not the store's business here.
func (t *Tail) holdsRow(m *transcript.Message, head transcript.Sequence) bool {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if m.Seq != head {
		return false
	}
	i, ok := t.find(m.Seq)
	if !ok {
		return true
	}
	held := t.heldRow(i)
	return sameRow(&held, m)
}

// sameRow reports whether a and b, two reads of a row under one Seq, are the same row
// (transcript.Message.SameRow).
func sameRow(a, b *transcript.Message) bool { return a.SameRow(b) }

// readError counts the reads p made and wraps err, the error of one of them: a store's
// failure, or a page that breaks the port's contract (the Pager checks every page).
func (t *Tail) readError(p *transcript.Pager, err error) error {
	t.metrics.TailReads.Add(uint64(p.Reads()))
	return fmt.Errorf("server: desk %q: reading its rows: %w", t.desk, err)
}

// readTokens reads the desk's tokens, for recheck.
func (t *Tail) readTokens(ctx context.Context) (map[[32]byte]token.Token, error) {
	all, err := t.tokens.Tokens(ctx)
	if err != nil {
		return nil, fmt.Errorf("server: desk %q: reading its tokens: %w", t.desk, err)
	}
	good := make(map[[32]byte]token.Token)
	for _, tok := range all {
		if tok.Desk == t.desk {
			good[tok.Hash] = tok
		}
	}
	return good, nil
}

// Recheck reports whether tok, the token of a stream on the desk, is still good for every
// row the tail holds: token.StillGood against the tokens read after them, or, for a token
// made since they were read, token.Recheck against the store (read after them too).
func (t *Tail) Recheck(ctx context.Context, tok token.Token) error {
	t.mu.RLock()
	now, ok := t.good[tok.Hash]
	t.mu.RUnlock()
	if !ok {
		return token.Recheck(ctx, t.tokens, tok)
	}
	return token.StillGood(tok, now)
}

// trim drops the oldest rows held past the budget, keeping the newest row; t.mu is held.
// It lets the rows grow an eighth past TailRows before it drops any, so that a busy desk
// copies its rows once in many refreshes, not on every one.
func (t *Tail) trim() {
	if len(t.rows) <= t.opts.TailRows+t.opts.TailRows/8 && t.bytes <= t.opts.TailBytes {
		return
	}
	drop := 0
	for drop < len(t.rows)-1 && (len(t.rows)-drop > t.opts.TailRows || t.bytes > t.opts.TailBytes) {
		m := t.heldRow(drop)
		t.bytes -= rowBytes(&m)
		drop++
	}
	if drop > 0 {
		t.rows = t.patched(t.rows[drop:]) // the copy takes the corrections in
		t.start = false
	}
}

// Current returns the channel the next change closes, and the head it changes from.
func (t *Tail) Current() (<-chan struct{}, transcript.Sequence) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.changed, t.head
}

// rowBytes is what a row costs the tail's byte budget.
func rowBytes(m *transcript.Message) int {
	n := len(m.Content) + len(m.Key) + len(m.Author.ID) + len(m.Author.Label) + 64
	for _, a := range m.Audience {
		n += len(a.ID) + len(a.Label) + 16
	}
	return n
}

func reversed(desc []transcript.Message) []transcript.Message {
	out := make([]transcript.Message, len(desc))
	for i, m := range desc {
		out[len(desc)-1-i] = m
	}
	return out
}
