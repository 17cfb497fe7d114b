package pgstore

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/deskqueue"
)

// notifyChannel is the LISTEN/NOTIFY channel on which every append announces its desk
// (notifySQL) and Watch listens. Notifications are per database: two stores in one
// database, in different schemas, hear each other, which costs a spurious name at most.
const notifyChannel = "transcript_desks"

// maxNotifyPayload is the longest desk name, in bytes, that an append's notification
// carries, plus one. PostgreSQL refuses a payload of 8000 bytes or more (less on a server
// built with pages smaller than 8 kB); a name this long or longer is sent as the empty
// payload instead, which Watch reads as "some desk" and answers with every desk's name.
// A name transcript.ValidateDesk accepts takes at most 400 bytes; an older version may
// still notify for a longer one it stored.
const maxNotifyPayload = 1024

// notifyPayload is the payload of desk's notification: its name, or "" for a name too long.
func notifyPayload(desk string) string {
	if len(desk) >= maxNotifyPayload {
		return ""
	}
	return desk
}

// headsChannel is the channel on which every append and every deletion announces its
// desk's head (notifyHeadsSQL), and WatchHeads listens. The same transaction then notifies
// the desk's name on notifyChannel: a transaction's notifications reach a listener one after
// the other, in the order they were sent, and WatchHeads takes the name that follows a head
// for the same report (a name that comes alone is from an older version, which notifies no
// head).
const headsChannel = "transcript_heads"

// notifyHeadsSQL notifies, on headsChannel, the head of desk $1 as the transaction reads it
// (0 once it is deleted) and the desk's name: "head name". A name too long for
// notifyChannel ($1 is "") has the empty payload there too.
const notifyHeadsSQL = `pg_notify('` + headsChannel + `', CASE WHEN $1 = '' THEN '' ELSE ` +
	`coalesce((SELECT head FROM transcript_desks WHERE name = $1), 0) || ' ' || $1 END)`

// parseHeadsPayload reads a payload of headsChannel: the desk's head and its name; ok is
// false for a payload that is not one.
func parseHeadsPayload(payload string) (desk string, head int64, ok bool) {
	h, desk, ok := strings.Cut(payload, " ")
	head, err := strconv.ParseInt(h, 10, 64)
	if !ok || err != nil || head < 0 || desk == "" {
		return "", 0, false
	}
	return desk, head, true
}

// digestsChannel is the channel on which every PutDigest that stores a digest announces its
// conversation, in its own transaction (putDigestSQL), and WatchDigests listens: "thread
// desk", the thread 0 for the channel. A desk's name too long for a payload
// (maxNotifyPayload) is not announced.
const digestsChannel = "transcript_digest_puts"

// parseDigestPayload reads a notification of digestsChannel: the conversation; ok is false
// for one of another channel (a LISTEN of the host's AfterConnect) or a payload that is not
// one.
func parseDigestPayload(channel, payload string) (c transcript.Conversation, ok bool) {
	if channel != digestsChannel {
		return c, false
	}
	thread, desk, ok := strings.Cut(payload, " ")
	t, err := strconv.ParseUint(thread, 10, 63)
	if !ok || err != nil || desk == "" {
		return c, false
	}
	return transcript.Conversation{Desk: desk, Thread: transcript.Sequence(t)}, true
}

// The timing of a Watch's connection: how long it waits in silence before it pings the
// server (a connection lost without a word, as in a network partition, is found so), how
// long a ping or a connection attempt may take, and the wait before an attempt to connect
// again: reconnectFirst before the first, doubling after each failure up to reconnectMost.
const (
	watchPingAfter  = 30 * time.Second // a Watch's pingAfter, which tests may shorten
	watchPingWithin = 10 * time.Second
	reconnectFirst  = 50 * time.Millisecond
	reconnectMost   = 5 * time.Second
)

// Head returns the Seq of desk's newest row committed, through this Store or any other
// (0 for a desk that holds none): one probe of the desks' primary key, on the primary in a
// Store with standbys (as Desks). It is the server's HeadReader: before a live stream first
// serves rows from memory it compares them with Head, and reads what is new first, since a
// commit's notification reaches Watch after the commit, not before the committer learns of
// it. A head above the last one Head read for the desk may stand for a correction, so the
// Logs' rows read ahead of the desk before it are not taken (as after Watch names the
// desk); in a Store with standbys, reads of the desk then wait for a standby that shows it.
func (s *Store) Head(ctx context.Context, desk string) (transcript.Sequence, error) {
	var head int64
	err := s.pool.QueryRow(ctx, deskHeadSQL, desk).Scan(&head)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("pgstore: head of desk %q: %w", desk, err)
	}
	if head > s.heads.get(desk) { // bumped before it is raised: a Head that finds it raised finds it bumped
		s.changes.bump(desk)
		s.heads.raise(desk, head)
	}
	if s.replicas.active() {
		s.replicas.fences.raise(desk, head)
	}
	return transcript.Sequence(head), nil
}

// Watch reports the desks that rows are committed to, by any process on the database: it
// returns a channel that yields a desk's name after each commit of an Append, AppendBatch
// or RestoreBatch to it (a correction's too), through this Store or any other. It is the
// server's Watcher: a live stream reads a desk again when its name comes.
//
// Every commit that begins after Watch returns is reported: its desk's name comes on the
// channel at least once after the commit. A name may stand for several commits (names
// wait, once each, while the receiver is slow: the channel never holds more than one name
// per desk, and never blocks the Store), and a name may come without a new row (a commit
// from before Watch returned, or a reconnection, below): a receiver reads the desk from its
// own watermark and finds what is new, if anything. Nothing but desk names comes; the order
// of two desks' names says nothing.
//
// Watch holds a connection of its own, outside the pool (made from the pool's
// configuration, its AfterConnect hook run on it), on which it LISTENs: an append notifies
// once it has committed (pg_notify, queued right after its COMMIT in the same round trip),
// so a refused append is never reported, nor a replay that writes nothing and rolls back,
// and a committed one is, unless the appending connection is lost between its COMMIT and the
// notification (its process killed in between): its rows then show at the desk's next
// append, or to a watcher that reconnects. One replay commits and is reported, spuriously:
// that of one keyed root whose key the desk holds (an Append, or an AppendBatch of that one
// message), whose one round trip sends its COMMIT before it can know (it commits a
// transaction that moves the head and back).
// Each Watch call has a connection of its own: a server calls Watch once and fans its names
// out to its streams. The connection must reach a PostgreSQL session (directly, or through
// a pooler in session mode: LISTEN does not work through transaction pooling).
//
// The connection survives the database's restarts: when it is lost (an error, or a ping
// that fails after watchPingAfter of silence), Watch connects again, with a backoff from
// 50 ms to 5 s, for as long as ctx lasts, LISTENs again and then reports the name of every
// desk (as Desks lists them) once, since rows may have been committed while it was not
// listening. No error is reported on the channel: it keeps trying.
//
// Watch returns once it listens, or an error if it cannot connect or ctx is done; after
// Close, ErrClosed; on a Store opened on a standby, which cannot LISTEN, ErrReadOnly. In a
// Store with standbys, it reads a desk's head on the primary before it sends the desk's
// name, so that the reads the name prompts show the rows it stands for ("Standbys" in the
// package documentation). The channel is closed, and the connection with it, once ctx is done or
// the Store is closed (Close waits for it).
func (s *Store) Watch(ctx context.Context) (<-chan string, error) {
	out := make(chan string)
	err := s.startWatch(ctx, &watch{names: make(chan string, watchBuffer)}, func(ctx context.Context, w *watch, listened <-chan struct{}) {
		forward(ctx, w.names, out, listened)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WatchHeads is Watch, with each desk's newest Seq: each value it sends maps desks to which
// rows were committed, or that were deleted, to their newest Seq as a notification of the
// commit read it (0 for a desk deleted), through this Store or any other of this version.
// A desk deleted comes as 0 before any Seq of the desk made anew under its name, in a value
// of its own, so that a receiver learns of the deletion even when the new desk has the old
// one's head; while a desk lives, its Seq never goes down. A desk may come with a Seq it came
// with before. The value is the receiver's. It is the server's HeadWatcher: a row the server
// appended itself need not be read back.
//
// Every commit that begins after WatchHeads returns is reported as Watch's names are, and
// the desk's Seq in the value is at least the commit's newest row. A Store of an older
// version notifies a desk's name without its head: WatchHeads reads the head then (and a
// name too long to notify, which comes without one, has every desk's head read).
//
// Unlike Watch, WatchHeads does not connect again: once its connection is lost (an error, or
// a ping that fails after 30 s of silence), it closes the channel, since it cannot tell
// which desks were deleted meanwhile; the receiver reads what it holds again and calls
// WatchHeads again. What Watch says of ctx, Close, standbys and the connection holds for
// WatchHeads too.
func (s *Store) WatchHeads(ctx context.Context) (<-chan map[string]transcript.Sequence, error) {
	return s.watchHeads(ctx, &watch{})
}

// watchHeads is WatchHeads on w, whose pings may be set.
func (s *Store) watchHeads(ctx context.Context, w *watch) (<-chan map[string]transcript.Sequence, error) {
	out := make(chan map[string]transcript.Sequence)
	w.heads = make(chan deskHead, watchBuffer)
	err := s.startWatch(ctx, w, func(ctx context.Context, w *watch, listened <-chan struct{}) {
		forwardHeads(ctx, w.heads, out, listened)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WatchDigests reports the conversations whose digests are stored, by any process on the
// database: it returns a channel that yields a conversation after each commit of a
// PutDigest to it, through this Store or any other of this version. It is the server's
// DigestWatcher: the desk's rows streams tell of the conversation, whose digest a client
// reads again.
//
// Every PutDigest that commits after WatchDigests returns is reported: a put notifies its
// conversation (digestsChannel) in its own transaction, so that the notification comes once
// it has committed, and never for a put refused or rolled back. A conversation comes at
// least once after the commit, once for several while the receiver is slow (the channel
// never holds a conversation twice, and never blocks the Store). A digest deleted (by a
// correction, with its desk) is not reported: the correction's row, or the desk's deletion,
// is Watch's to report. Nothing but the conversation comes, never a digest's text; the
// order of two conversations says nothing.
//
// Like WatchHeads, WatchDigests does not connect again: once its connection is lost it
// closes the channel, since a digest stored meanwhile was notified to nobody; the receiver
// calls WatchDigests again. What Watch says of ctx, Close, standbys and the connection holds
// for WatchDigests too.
func (s *Store) WatchDigests(ctx context.Context) (<-chan transcript.Conversation, error) {
	out := make(chan transcript.Conversation)
	err := s.startWatch(ctx, &watch{digests: make(chan transcript.Conversation, watchBuffer)}, func(ctx context.Context, w *watch, listened <-chan struct{}) {
		forward(ctx, w.digests, out, listened)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// watchBuffer is how many names, heads or conversations a watch's listener hands to its
// forwarder without waiting.
const watchBuffer = 64

// startWatch connects w, which holds the one channel its listener sends on (names, heads or
// digests), and starts its listener and run, which forwards what the listener sends until
// ctx is done (then it waits for listened) or, for WatchHeads and WatchDigests, the listener
// ends (listened).
func (s *Store) startWatch(ctx context.Context, w *watch, run func(ctx context.Context, w *watch, listened <-chan struct{})) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.recovery {
		return fmt.Errorf("%w: watch refused: %s, which cannot LISTEN; watch the primary", ErrReadOnly, s.readOnly)
	}
	caller := ctx
	cfg := s.pool.Config()
	w.config, w.afterConnect, w.changed = cfg.ConnConfig, cfg.AfterConnect, s.changes.bump
	w.pingAfter, w.pingWithin = cmp.Or(s.hooks.pingAfter, w.pingAfter, watchPingAfter), cmp.Or(w.pingWithin, watchPingWithin)
	if s.replicas.active() {
		w.fence, w.deleted = s.replicas.fences.raise, s.replicas.fences.deletedAt
	}
	ctx, end, ok := s.watches.Add(ctx, w) // Close ends the watch
	if !ok {
		return ErrClosed
	}

	conn, err := w.connect(ctx)
	if err != nil {
		end()
		if caller.Err() == nil && ctx.Err() != nil { // Close ended it
			return ErrClosed
		}
		return fmt.Errorf("pgstore: watch: %w", err)
	}
	listened := make(chan struct{})
	go func() {
		defer close(listened)
		w.listen(ctx, conn)
	}()
	go func() {
		defer end()
		run(ctx, w, listened)
	}()
	return nil
}

// watch is one Watch call's connection and what it needs to make it again.
type watch struct {
	config       *pgx.ConnConfig
	afterConnect func(context.Context, *pgx.Conn) error
	pingAfter    time.Duration                // watchPingAfter, unless set before startWatch
	pingWithin   time.Duration                // watchPingWithin, unless set before startWatch
	names        chan string                  // to forward (Watch), or nil
	heads        chan deskHead                // to forwardHeads (WatchHeads), or nil
	digests      chan transcript.Conversation // to forward (WatchDigests), or nil
	after        *string                      // WatchHeads: the desk of the head notified last, whose name notification comes next ("" for the empty payload)
	// fence, in a Store with standbys, raises a desk's fence to its head on the primary,
	// read before its name is sent, so that the reads the name prompts wait for a standby
	// to show the rows it stands for (route).
	fence func(desk string, head int64)
	// deleted, in a Store with standbys, notes a desk deleted by the primary's WAL position
	// read on the watch's connection after the deletion's notification came (so past its
	// commit), before its name or head is sent: a standby answers reads of the desk only
	// once it has replayed that far (route).
	deleted func(desk string, lsn int64)
	// changed notes that a commit to a desk may have changed its rows (a correction), before
	// its name is sent, so that the reads the name prompts never take rows read before it.
	changed func(desk string)
}

// connect makes the watch's connection and LISTENs on it, within watchPingWithin.
func (w *watch) connect(ctx context.Context) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, watchPingWithin)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, w.config)
	if err != nil {
		return nil, err
	}
	if w.afterConnect != nil {
		err = w.afterConnect(ctx, conn)
	}
	channels := []string{notifyChannel}
	switch {
	case w.heads != nil:
		channels = append(channels, headsChannel)
	case w.digests != nil:
		channels = []string{digestsChannel}
	}
	for _, channel := range channels {
		if err == nil {
			_, err = conn.Exec(ctx, "LISTEN "+channel)
		}
	}
	if err != nil {
		closeConn(conn)
		return nil, err
	}
	return conn, nil
}

// listen forwards the names of the notifications conn receives until ctx is done, and
// closes it. When the connection is lost, Watch's connects again (reconnect), which sends
// every desk's name; WatchHeads' and WatchDigests' end.
func (w *watch) listen(ctx context.Context, conn *pgx.Conn) {
	for conn != nil {
		w.receive(ctx, conn) // returns once ctx is done or conn is lost
		closeConn(conn)
		if w.heads != nil || w.digests != nil {
			return
		}
		conn = w.reconnect(ctx) // nil once ctx is done
	}
}

// receive forwards the names of the notifications on conn until ctx is done or the
// connection fails, and returns why. After watchPingAfter without a notification it pings
// the server: a connection that cannot answer within w.pingWithin is lost.
func (w *watch) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		waitCtx, cancel := context.WithTimeout(ctx, w.pingAfter)
		n, err := conn.WaitForNotification(waitCtx) // a timeout leaves the connection usable
		cancel()
		var after *string
		if err == nil {
			after, w.after = w.after, nil
		}
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err == nil && w.digests != nil:
			if c, ok := parseDigestPayload(n.Channel, n.Payload); ok && !w.sendDigest(ctx, c) {
				return ctx.Err()
			}
		case err == nil && n.Channel == headsChannel && w.heads != nil:
			if err := w.noteHeads(ctx, conn, n.Payload); err != nil {
				return err
			}
		case err == nil && n.Channel != notifyChannel: // a LISTEN of the host's AfterConnect
		case err == nil && after != nil && *after == n.Payload: // the name of the head before it
		case err == nil && n.Payload == "": // a desk name too long to carry (notifyPayload)
			if err := w.sendAll(ctx, conn); err != nil {
				return err
			}
		case err == nil:
			w.changed(n.Payload)
			if err := w.noteHead(ctx, conn, n.Payload); err != nil {
				return err
			}
			if w.heads == nil && !w.send(ctx, n.Payload) {
				return ctx.Err()
			}
		case pgconn.Timeout(err):
			pingCtx, cancel := context.WithTimeout(ctx, w.pingWithin)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil {
				return err
			}
		default:
			return err
		}
	}
}

// reconnect connects and LISTENs again, then sends the name of every desk, which may have
// rows committed while nobody listened. It waits before each attempt, from reconnectFirst
// to reconnectMost, doubling, with jitter, until one succeeds, or ctx is done (nil).
func (w *watch) reconnect(ctx context.Context) *pgx.Conn {
	delay := reconnectFirst
	for {
		timer := time.NewTimer(delay/2 + rand.N(delay/2+1))
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-timer.C:
		}
		conn, err := w.connect(ctx)
		if err == nil {
			if err = w.sendAll(ctx, conn); err == nil {
				return conn
			}
			closeConn(conn)
		}
		delay = min(2*delay, reconnectMost)
	}
}

// query bounds one of the watch's own queries on its connection by w.pingWithin, as a ping
// is: a connection that cannot answer one in that time is lost, and its error ends receive.
func (w *watch) query(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, w.pingWithin)
}

// noteHead raises desk's fence to its head, read on conn, when the watch keeps fences, and
// sends the head when the watch sends heads (WatchHeads): the name came without one.
func (w *watch) noteHead(ctx context.Context, conn *pgx.Conn, desk string) error {
	if w.fence == nil && w.heads == nil {
		return nil
	}
	var head int64
	qctx, cancel := w.query(ctx)
	err := conn.QueryRow(qctx, deskHeadSQL, desk).Scan(&head)
	cancel()
	if err != nil && !errors.Is(err, pgx.ErrNoRows) { // no row: a spurious name, or a desk deleted
		return err
	}
	if head == 0 {
		if err := w.noteDeleted(ctx, conn, desk); err != nil {
			return err
		}
	}
	if w.fence != nil {
		w.fence(desk, head)
	}
	if w.heads != nil && !w.sendHead(ctx, desk, head) {
		return ctx.Err()
	}
	return nil
}

// noteHeads takes a notification of headsChannel (WatchHeads): it sends the head it
// carries, or every desk's head for the empty payload of a name too long to carry.
func (w *watch) noteHeads(ctx context.Context, conn *pgx.Conn, payload string) error {
	if payload == "" {
		w.after = &payload
		return w.sendAll(ctx, conn)
	}
	desk, head, ok := parseHeadsPayload(payload)
	if !ok {
		return nil
	}
	w.after = &desk
	w.changed(desk)
	if head == 0 {
		if err := w.noteDeleted(ctx, conn, desk); err != nil {
			return err
		}
	}
	if w.fence != nil {
		w.fence(desk, head)
	}
	if !w.sendHead(ctx, desk, head) {
		return ctx.Err()
	}
	return nil
}

// noteDeleted notes desk as deleted by the primary's WAL position now, read on conn, when
// the watch notes deletions: the deletion, whose notification came, committed before it.
func (w *watch) noteDeleted(ctx context.Context, conn *pgx.Conn, desk string) error {
	if w.deleted == nil {
		return nil
	}
	var lsn int64
	qctx, cancel := w.query(ctx)
	defer cancel()
	if err := conn.QueryRow(qctx, walPositionSQL).Scan(&lsn); err != nil {
		return err
	}
	w.deleted(desk, lsn)
	return nil
}

// sendAll sends the name of every desk, read on conn, raising its fence to its head first
// when the watch keeps fences.
func (w *watch) sendAll(ctx context.Context, conn *pgx.Conn) error {
	qctx, cancel := w.query(ctx)
	desks, err := deskHeads(qctx, conn)
	cancel()
	if err != nil {
		return err
	}
	for _, d := range desks {
		w.changed(d.name)
		if w.fence != nil {
			w.fence(d.name, d.head)
		}
		if w.heads != nil {
			if !w.sendHead(ctx, d.name, d.head) {
				return ctx.Err()
			}
		} else if !w.send(ctx, d.name) {
			return ctx.Err()
		}
	}
	return nil
}

// send hands name to forward, unless ctx is done first (false).
func (w *watch) send(ctx context.Context, name string) bool {
	select {
	case w.names <- name:
		return true
	case <-ctx.Done():
		return false
	}
}

// sendHead hands desk's head to forwardHeads, unless ctx is done first (false).
func (w *watch) sendHead(ctx context.Context, desk string, head int64) bool {
	select {
	case w.heads <- deskHead{desk, head}:
		return true
	case <-ctx.Done():
		return false
	}
}

// sendDigest hands c to forward, unless ctx is done first (false).
func (w *watch) sendDigest(ctx context.Context, c transcript.Conversation) bool {
	select {
	case w.digests <- c:
		return true
	case <-ctx.Done():
		return false
	}
}

// closeConn closes conn, waiting a second at most for the server to hear it.
func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	conn.Close(ctx)
}

// forward passes the names (or conversations) from names to out, each once while it waits
// for the receiver, so that neither the connection nor the Store ever waits for a slow
// receiver. Once ctx is done it waits for the listener to end (listened) and closes out;
// once the listener ended without ctx (a WatchDigests whose connection was lost), it passes
// on what the listener sent before it ended, then closes out.
func forward[T comparable](ctx context.Context, names <-chan T, out chan<- T, listened <-chan struct{}) {
	defer close(out)
	var q deskqueue.Queue[T]
	for {
		var (
			send chan<- T // nil while nothing waits: that case never runs
			next T
		)
		if q.Len() > 0 {
			send, next = out, q.First()
		}
		select {
		case <-ctx.Done():
			<-listened
			return
		case <-listened:
			for len(names) > 0 { // the listener has ended: nothing more comes
				q.Add(<-names)
			}
			for q.Len() > 0 {
				select {
				case <-ctx.Done():
					return
				case out <- q.First():
					q.Pop()
				}
			}
			return
		case name := <-names:
			q.Add(name)
		case send <- next:
			q.Pop()
		}
	}
}

// forwardHeads passes the heads from heads to out, each desk once while it waits for the
// receiver, with its newest head (deskqueue.Heads: a head of 0 is a desk deleted), so that
// neither the connection nor the Store ever waits for a slow receiver. Once ctx is done it
// waits for the listener to end (listened) and closes out; once the listener ended (its
// connection lost), it closes out.
func forwardHeads(ctx context.Context, heads <-chan deskHead, out chan<- map[string]transcript.Sequence, listened <-chan struct{}) {
	defer close(out)
	var h deskqueue.Heads
	for {
		var (
			send chan<- map[string]transcript.Sequence // nil while nothing waits: that case never runs
			next map[string]transcript.Sequence
		)
		if h.Len() > 0 {
			send, next = out, h.Value()
		}
		select {
		case <-ctx.Done():
			<-listened
			return
		case <-listened:
			return
		case d := <-heads:
			if d.head == 0 {
				h.Deleted(d.name)
			} else {
				h.Set(d.name, transcript.Sequence(d.head))
			}
		case send <- next:
			h.Taken()
		}
	}
}

// querier is what deskHeads reads on: the pool (Desks) or a Watch's own connection.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

var (
	_ querier = (*pgxpool.Pool)(nil)
	_ querier = (*pgx.Conn)(nil)
)
