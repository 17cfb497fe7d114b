package server

import (
	"context"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/token"
)

// Store is what the service needs of a store: sqlitestore.Store is one, and so is
// pgstore.Store. It must be safe for concurrent use.
//
//   - transcript.Appender appends the token's messages: AppendNew's answer is what
//     tells a new row (201) from a replayed key (200), also across processes.
//   - transcript.DeskLogs reads one desk's log (a desk with no row reads as an empty log).
//   - token.Store finds the tokens requests carry (token.Authenticate).
type Store interface {
	transcript.Appender
	transcript.DeskLogs
	token.Store
}

// Watcher is an optional capability of a Store: it tells the server which desks have new
// rows, whoever appended them (this process, another serve process over the same
// PostgreSQL database, the command line on the same SQLite file). pgstore implements it
// with LISTEN/NOTIFY; sqlitestore can with PRAGMA data_version.
//
// Watch returns a channel on which the store sends the name of a desk after rows were
// committed to it. It may send one name for many rows (coalescing), and may send a name
// for which nothing is new; it must not leave out a commit while the channel is open. The
// server receives promptly. The store closes the channel when ctx is done, and when it
// can no longer watch (a lost connection): the server then refreshes every desk it
// streams, polls every Options.PollInterval, and calls Watch again after a pause. An
// error from Watch means the same as a closed channel.
//
// Without a Watcher the server polls: every PollInterval it reads the newest rows of each
// desk that has open streams (one read per desk, usually of nothing new), so a row another
// process appends reaches the streams within a second. Rows appended through the server
// itself reach them at once either way.
type Watcher interface {
	Watch(ctx context.Context) (<-chan string, error)
}

// HeadWatcher is an optional capability of a Watcher: WatchHeads is Watch, with each desk's
// newest Seq. Each value it sends maps desks to which rows were committed (or that were
// deleted) to their newest Seq as the store knew it when it sent the value, 0 for a desk
// deleted or holding none; once the server holds a desk's rows up to that Seq, it holds
// every row committed to the desk before the value was sent. While a desk lives the Seq
// sent for it never goes down. A desk deleted comes as 0, and the desk made anew under its
// name since then comes with its Seq in a later value, never the same one, even when it
// has the deleted desk's Seq: the server then drops what it holds of the desk. The value is
// the server's. sqlitestore and pgstore implement it.
//
// With it the server need not read a desk back after a row it appended itself: the row
// it stored is the desk's next, and the report of its commit names a head the server
// holds already.
type HeadWatcher interface {
	WatchHeads(ctx context.Context) (<-chan map[string]transcript.Sequence, error)
}

// DigestWatcher is an optional capability of a Store: it tells the server which
// conversations' digests were stored, by whatever process (this one, another serve process
// over the same PostgreSQL database, the transcript digest command on the same SQLite file),
// so that the desk's rows streams tell of them (a digest event, which holds the conversation
// alone) as of a fold this server made. sqlitestore and pgstore implement it.
//
// WatchDigests returns a channel on which the store sends a conversation after a digest of
// it was stored; it may send one for several, and one for which nothing changed, and should
// not leave out a digest stored while the channel is open (sqlitestore's doc says when it
// may). It sends no digest's text. The server receives promptly. The store closes the
// channel when ctx is done, and when it can no longer watch: the server calls WatchDigests
// again after a pause, and once it answers, ends the streams that tell of digests, since a
// digest another process stored meanwhile was told to none: their clients reconnect and
// read their digests again. An error from WatchDigests means the same as a closed channel.
// Without a DigestWatcher, only this server's folds reach the streams.
type DigestWatcher interface {
	WatchDigests(ctx context.Context) (<-chan transcript.Conversation, error)
}

// HeadReader is an optional capability of a Store: Head returns the Seq of desk's newest
// row committed by any process (0 for a desk with none), with one small read that holds no
// row's content. Before a stream first serves from memory, the server compares it with the
// newest row it holds and reads what is new first, so that a stream opened after a commit
// elsewhere (a redaction by the command line, or by another serve process) never carries
// what that commit changed. Without it the server reads the desk's newest row through Log.
type HeadReader interface {
	Head(ctx context.Context, desk string) (transcript.Sequence, error)
}

// Pinger is an optional capability of a Store: GET /healthz calls Ping to learn whether the
// store answers. Without it, /healthz reads the newest row of one desk.
type Pinger interface {
	Ping(ctx context.Context) error
}
