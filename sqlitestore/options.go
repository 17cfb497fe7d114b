package sqlitestore

import (
	"fmt"
	"runtime"
	"time"

	"github.com/sharedesk/transcript"
)

// Option configures a Store at Open.
type Option func(*config)

// config is what the Options set.
type config struct {
	maxContent    int
	busyTimeout   time.Duration
	readers       int
	watchInterval time.Duration
	readOnly      bool
	immutable     bool // inspect's probe of a WAL-mode file without its sidecars: SQLite's immutable=1
	indexProgress IndexProgress
	err           error // the first invalid option
}

// DefaultWatchInterval is how often a Watch of a Store opened without WithWatchInterval
// polls the file for commits by other processes.
const DefaultWatchInterval = 200 * time.Millisecond

// DefaultBusyTimeout is how long a Store opened without WithBusyTimeout waits for another
// process's write lock before an append fails.
const DefaultBusyTimeout = 5 * time.Second

func defaultConfig() config {
	return config{
		maxContent:    transcript.MaxContent,
		busyTimeout:   DefaultBusyTimeout,
		readers:       max(4, runtime.GOMAXPROCS(0)),
		watchInterval: DefaultWatchInterval,
	}
}

func (c *config) invalid(format string, args ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: "+format, append([]any{ErrOption}, args...)...)
	}
}

// WithMaxContent sets the largest content, in bytes, that Append and AppendBatch accept
// (default transcript.MaxContent, the most any store keeps): a lower limit, 1 to
// transcript.MaxContent.
func WithMaxContent(bytes int) Option {
	return func(c *config) {
		if bytes < 1 || bytes > transcript.MaxContent {
			c.invalid("content limit %d, want 1 to %d bytes", bytes, transcript.MaxContent)
			return
		}
		c.maxContent = bytes
	}
}

// WithBusyTimeout sets how long a statement waits for a lock held by another process (or
// another Store on the same file) before it fails (SQLite's busy_timeout; default
// DefaultBusyTimeout). Within one Store, appends queue for its single writer connection
// instead, for as long as their ctx allows.
func WithBusyTimeout(d time.Duration) Option {
	return func(c *config) {
		if d < 0 {
			c.invalid("busy timeout %v, want 0 or more", d)
			return
		}
		c.busyTimeout = d
	}
}

// WithReaders sets the most connections reads use at once (default: GOMAXPROCS, at least 4).
// Reads never wait for appends: each sees the last committed state (WAL mode).
func WithReaders(n int) Option {
	return func(c *config) {
		if n < 1 {
			c.invalid("%d readers, want at least 1", n)
			return
		}
		c.readers = n
	}
}

// WithWatchInterval sets how often Watch polls the file for rows other processes committed
// (default DefaultWatchInterval): the longest a commit by another process waits to be
// reported, and how often a Watch reads data_version (a few microseconds) when nothing
// changed. It must be more than 0. Appends through the Store itself are reported at once.
func WithWatchInterval(d time.Duration) Option {
	return func(c *config) {
		if d <= 0 {
			c.invalid("watch interval %v, want more than 0", d)
			return
		}
		c.watchInterval = d
	}
}

// ReadOnly opens the store without writing to it: Open neither creates nor initializes nor
// migrates the file, and refuses a missing file (an error matching
// fs.ErrNotExist), an empty one (ErrNotStore) and a store at another schema version (a
// *SchemaError, matching ErrSchemaBehind or ErrSchemaTooNew). Every write of the Store
// (Append, AppendBatch, AddToken, RevokeToken, SaveBook) is refused with ErrReadOnly. To
// read a WAL-mode file, SQLite makes its write-ahead log and index beside it while the Store
// is open, when no other process has; Close removes them (see Open). The one write it makes
// is SQLite's own: when it closes the file last and the write-ahead log holds a writer's
// frames, SQLite copies them into the database, as any last connection to close does, so
// that text a redaction erased stays in no file.
func ReadOnly() Option {
	return func(c *config) { c.readOnly = true }
}

// WithIndexProgress has Open tell progress how far a rebuild of the search index has come
// (the migrations to the keyed index and to its thread tokens, or a rebuild after the
// Unicode tables changed), after every chunk of rows: done of total rows of the file.
// Open holds the file's write lock while it rebuilds; a file of millions of rows takes
// seconds. progress runs on Open's goroutine and must not use the Store.
func WithIndexProgress(progress IndexProgress) Option {
	return func(c *config) { c.indexProgress = progress }
}
