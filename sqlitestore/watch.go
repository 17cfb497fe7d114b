package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/deskqueue"
)

// The statements of a Watch's poll, on its own reader connection. data_version changes when
// another connection (this Store's writer, another Store's, another process's) commits to
// the file; headsSQL then reads every desk's id and newest Seq, one probe of the (desk, seq)
// index a desk, so a poll costs the number of desks, never their rows. A desk's id is never
// given to another desk (DeleteDesk): a name under a new id is a desk deleted and made anew.
const (
	dataVersionSQL = `PRAGMA data_version`
	headsSQL       = `SELECT name, id, ifnull((SELECT max(seq) FROM messages WHERE desk = desks.id), 0) FROM desks WHERE ` + liveDesk
)

// headSQL reads one desk's newest Seq: a probe of the desks' name index and one of the
// (desk, seq) index. No row: a desk that holds none.
const headSQL = `SELECT ifnull((SELECT max(seq) FROM messages WHERE desk = desks.id), 0) FROM desks WHERE name = ?1`

// Head returns the Seq of desk's newest row committed to the file, by this Store or any
// other process, 0 for a desk that holds none; it reads no row's content. It is the
// server's HeadReader: before a live stream first serves rows from memory it compares
// them with Head, and reads what is new first, so that a stream opened after another
// process's commit (a redaction by the command line) never carries what it changed,
// whereas Watch reports that commit at its next poll only. After Close, ErrClosed.
func (s *Store) Head(ctx context.Context, desk string) (transcript.Sequence, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if s.closed.Load() {
		return 0, ErrClosed
	}
	var head int64
	err := s.readers.QueryRowContext(boundedRead(ctx), headSQL, desk).Scan(&head)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("sqlitestore: head of desk %q: %w", desk, err)
	}
	return transcript.Sequence(head), nil
}

// Watch reports the desks that rows are committed to, by this Store or any other process
// on the file (the transcript append command, while the service runs): it returns a
// channel that yields a desk's name after each commit of an Append or AppendBatch to it.
// It is the server's Watcher: a live stream reads a desk again when its name comes.
//
// Every commit that begins after Watch returns is reported: its desk's name comes on the
// channel at least once after the commit. A name may stand for several commits (names
// wait, once each, while the receiver is slow: the channel never holds more than one name
// per desk, and never blocks the Store), and a name may come spuriously: a receiver reads
// the desk from its own watermark and finds what is new, if anything. Nothing but desk names
// comes; the order of two desks' names says nothing.
//
// SQLite tells no one of a commit, so Watch polls, every 200 ms (WithWatchInterval), on a
// reader connection of its own: it reads PRAGMA data_version, which changes when any other
// connection commits to the file, and when it changed, reads every desk's newest Seq in one
// query (an index probe a desk) and reports the desks whose newest row moved since the last
// poll. Appends through this Store do not wait for the poll: once one commits, Watch
// reports its desk at once (and the poll then finds nothing new there). A poll that fails
// (the file busy past the busy timeout) is tried again at the next one; nothing is missed,
// since the heads are compared with the last ones read.
//
// Watch returns once it has read the heads it compares with, or an error if it cannot, or
// ctx is done; after Close, ErrClosed. The channel is closed, and the connection with it,
// once ctx is done or the Store is closed (Close waits for it).
func (s *Store) Watch(ctx context.Context) (<-chan string, error) {
	out := make(chan string)
	err := s.startWatch(ctx, func(ctx context.Context, w *watch) { w.run(ctx, out, nil, nil, s.watchInterval) }, watchNames)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WatchHeads is Watch, with each desk's newest Seq: each value it sends maps every desk
// whose newest row moved since the last value the receiver took (or that was deleted) to
// its newest Seq as the watch knew it when it sent the value, 0 for a desk deleted or
// holding none. A desk deleted comes as 0, and a desk made anew under its name since comes
// with its head in a later value, never in the same one: a receiver learns of the deletion
// even when the new desk has the old one's head (the desk's id, which DeleteDesk never
// gives to another desk, tells them apart). A desk may come with a Seq it came with before,
// when nothing was new there. The value is the receiver's. What Watch says of commits,
// polls, ctx and Close holds for WatchHeads too: a receiver that holds a desk's rows up to
// the Seq that comes for it has every row committed to it before the value was sent.
func (s *Store) WatchHeads(ctx context.Context) (<-chan map[string]transcript.Sequence, error) {
	out := make(chan map[string]transcript.Sequence)
	err := s.startWatch(ctx, func(ctx context.Context, w *watch) { w.run(ctx, nil, out, nil, s.watchInterval) }, watchHeads)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WatchDigests reports the conversations whose digests are stored, by this Store or any
// other process on the file (the transcript digest command, while the service runs): it
// returns a channel that yields a conversation after each commit of a PutDigest to it. It
// is the server's DigestWatcher: the desk's rows streams tell of the conversation, whose
// digest a client reads again.
//
// Every PutDigest that commits after WatchDigests returns is reported: its conversation
// comes on the channel at least once after the commit, once for several while the receiver
// is slow (the channel never holds a conversation twice, and never blocks the Store), and
// may come spuriously. A digest deleted (by a correction, with its desk) is not reported:
// the correction's row, or the desk's deletion, is Watch's to report. Nothing but the
// conversation comes, never a digest's text; the order of two conversations says nothing.
//
// It polls as Watch does, on a connection of its own: when data_version changed, it reads
// the digests stored since the last poll, those whose id is above the newest one it read,
// which costs the digests stored since, not those held. A digest's id is never given again,
// also once the newest digests were deleted, so every digest stored since has an id above
// it. What Watch says of ctx and Close holds for WatchDigests too.
func (s *Store) WatchDigests(ctx context.Context) (<-chan transcript.Conversation, error) {
	out := make(chan transcript.Conversation)
	err := s.startWatch(ctx, func(ctx context.Context, w *watch) { w.run(ctx, nil, nil, out, s.watchInterval) }, watchDigests)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// watchKind is what a watch sends: desks' names (Watch), their heads (WatchHeads), or the
// conversations whose digests were stored (WatchDigests).
type watchKind uint8

const (
	watchNames watchKind = iota
	watchHeads
	watchDigests
)

// startWatch opens a watch of kind and reads what it compares with, then runs run on a
// goroutine of its own until ctx is done or the Store is closed (Close waits for it).
func (s *Store) startWatch(ctx context.Context, run func(context.Context, *watch), kind watchKind) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	w := &watch{kick: make(chan struct{}, 1), kind: kind}
	ctx, end, ok := s.watches.Add(ctx, w) // Close ends the watch
	if !ok {
		return ErrClosed
	}

	err := w.open(ctx, s.readerDSN)
	if err == nil {
		err = w.poll(ctx, false)
	}
	if err != nil {
		w.close()
		end()
		if s.closed.Load() {
			return ErrClosed
		}
		return fmt.Errorf("sqlitestore: watch: %w", err)
	}
	go func() {
		defer end()
		defer w.close()
		run(ctx, w)
	}()
	return nil
}

// watch is one Watch call: its connection, what it last read, and the heads this Store's
// appends pushed to it.
type watch struct {
	db      *sql.DB
	conn    *sql.Conn
	kind    watchKind
	version int64                                    // data_version at the last poll
	heads   map[string]deskHead                      // every desk's id and newest Seq, as last read or pushed
	digest  int64                                    // WatchDigests: the newest digest's id as last read (0: none)
	read    bool                                     // the first poll read what later ones compare with
	stale   bool                                     // the last poll failed: read again whatever data_version says
	names   deskqueue.Queue[string]                  // the desks that moved, for Watch's receiver
	moved   deskqueue.Heads                          // the desks that moved, for WatchHeads' receiver
	convs   deskqueue.Queue[transcript.Conversation] // the conversations whose digests were stored, for WatchDigests' receiver

	mu     sync.Mutex
	pushed map[string]deskHead // by this Store's appends since the loop last looked, under mu
	kick   chan struct{}       // a push waits in pushed
}

// deskHead is a desk's id and newest Seq.
type deskHead struct{ id, head int64 }

// open opens the watch's connection: a database/sql pool of one, pinned, so that every
// data_version is read on the same connection.
func (w *watch) open(ctx context.Context, dsn string) error {
	db, err := sql.Open(driverName, dsn)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	w.db = db
	w.conn, err = db.Conn(ctx)
	return err
}

func (w *watch) close() {
	if w.conn != nil {
		w.conn.Close()
	}
	if w.db != nil {
		w.db.Close()
	}
}

// push tells the watch that an append through its Store committed the rows of desk, of id
// id, up to head.
func (w *watch) push(desk string, id, head int64) {
	w.mu.Lock()
	if w.pushed == nil {
		w.pushed = make(map[string]deskHead)
	}
	if old := w.pushed[desk]; id > old.id || id == old.id && head > old.head {
		w.pushed[desk] = deskHead{id, head}
	}
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default: // a kick waits already
	}
}

// run sends the names of the desks that moved on names (Watch), or them with their heads on
// heads (WatchHeads), or the conversations whose digests were stored on digests
// (WatchDigests), whichever is not nil, until ctx is done, then closes it: it polls every
// interval and takes the heads pushed, and holds what the receiver has not taken yet, each
// once.
func (w *watch) run(ctx context.Context, names chan<- string, heads chan<- map[string]transcript.Sequence, digests chan<- transcript.Conversation, interval time.Duration) {
	switch {
	case names != nil:
		defer close(names)
	case heads != nil:
		defer close(heads)
	default:
		defer close(digests)
	}
	ticker := time.NewTicker(interval)
	defer ticker.Stop()
	for {
		var (
			sendName  chan<- string // nil while nothing waits: that case never runs
			name      string
			sendHeads chan<- map[string]transcript.Sequence
			moved     map[string]transcript.Sequence
			sendConv  chan<- transcript.Conversation
			conv      transcript.Conversation
		)
		if w.names.Len() > 0 {
			sendName, name = names, w.names.First()
		}
		if w.moved.Len() > 0 {
			sendHeads, moved = heads, w.moved.Value()
		}
		if w.convs.Len() > 0 {
			sendConv, conv = digests, w.convs.First()
		}
		select {
		case <-ctx.Done():
			return
		case sendName <- name:
			w.names.Pop()
		case sendHeads <- moved:
			w.moved.Taken()
		case sendConv <- conv:
			w.convs.Pop()
		case <-w.kick:
			w.mu.Lock()
			pushed := w.pushed
			w.pushed = nil
			w.mu.Unlock()
			for desk, p := range pushed {
				old, ok := w.heads[desk]
				switch {
				case ok && p.id < old.id: // the desk was deleted since: the poll found it
				case ok && p.id > old.id: // deleted and made anew since the last poll
					w.heads[desk] = p
					w.note(desk, p.head, true)
				case p.head > old.head:
					w.heads[desk] = p
					w.note(desk, p.head, false)
				}
			}
		case <-ticker.C:
			w.poll(ctx, true) // a failure is tried again at the next tick
		}
	}
}

// note adds desk, whose head is head, to the desks that moved: to names or to moved,
// whichever the watch sends; deleted, it was deleted since it last moved (and perhaps made
// anew: its head is the new desk's).
func (w *watch) note(desk string, head int64, deleted bool) {
	switch {
	case w.kind == watchNames:
		w.names.Add(desk)
	case deleted:
		w.moved.Deleted(desk)
		if head > 0 {
			w.moved.Set(desk, transcript.Sequence(head))
		}
	default:
		w.moved.Set(desk, transcript.Sequence(head))
	}
}

// poll reads data_version and, when it changed since the last poll (or that poll failed),
// every desk's id and head, and notes the desks whose head moved, that are gone
// (DeleteDesk), or that have a new id (deleted and made anew), when report is true (the
// first poll, in Watch, only reads what later ones compare with); WatchDigests' reads the
// digests stored since instead (pollDigests). A head pushed by this Store's append is one
// the next read finds too: the append had committed.
func (w *watch) poll(ctx context.Context, report bool) error {
	var version int64
	if err := w.conn.QueryRowContext(ctx, dataVersionSQL).Scan(&version); err != nil {
		w.stale = true
		return err
	}
	if w.read && !w.stale && version == w.version {
		return nil
	}
	if w.kind == watchDigests {
		if err := w.pollDigests(ctx, report); err != nil {
			w.stale = true
			return err
		}
		w.version, w.stale, w.read = version, false, true
		return nil
	}
	heads, err := readHeads(ctx, w.conn)
	if err != nil {
		w.stale = true
		return err
	}
	if report {
		for desk, h := range heads {
			switch old, ok := w.heads[desk]; {
			case ok && h.id != old.id:
				w.note(desk, h.head, true)
			case !ok || h.head != old.head:
				w.note(desk, h.head, false)
			}
		}
		for desk := range w.heads {
			if _, ok := heads[desk]; !ok { // deleted (DeleteDesk)
				w.note(desk, 0, true)
			}
		}
	}
	w.heads, w.version, w.stale, w.read = heads, version, false, true
	return nil
}

// readHeads reads every desk's id and newest Seq (headsSQL) on conn.
func readHeads(ctx context.Context, conn *sql.Conn) (map[string]deskHead, error) {
	rows, err := conn.QueryContext(ctx, headsSQL)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	heads := make(map[string]deskHead)
	for rows.Next() {
		var (
			name string
			h    deskHead
		)
		if err := rows.Scan(&name, &h.id, &h.head); err != nil {
			return nil, err
		}
		heads[name] = h
	}
	return heads, rows.Err()
}

// announce pushes the new head of desk, of id id, to every Watch of the Store, after an
// append committed.
func (s *Store) announce(desk string, id, head int64) {
	s.watches.Each(func(w *watch) {
		if w.kind != watchDigests {
			w.push(desk, id, head)
		}
	})
}
