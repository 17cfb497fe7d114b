package pgstore

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

// DefaultMaxContent is the default limit on a message's content: 1 MiB.
const DefaultMaxContent = 1 << 20

// Store is a transcript store in one PostgreSQL database: many desks, each an append-only
// log. It is safe for concurrent use by multiple goroutines and by several processes sharing
// the database.
type Store struct {
	pool       *pgxpool.Pool
	ownPool    bool // Open made the pool; Close closes it
	maxContent int
	closeOnce  sync.Once
	// audiences are the asides' audiences decoded so far, shared by the store's Logs and
	// appends (which read their parents' audiences).
	audiences audienceCache

	// beforeCommit, when set (by tests only), runs inside an append's transaction after its
	// rows are inserted and before it commits.
	beforeCommit func(ctx context.Context, desk string, rows []transcript.Message)
	// reads counts ReadBefore's queries, for the tests of reading ahead.
	reads atomic.Int64

	// watching is every Watch running, with the function that ends it; closing is set by
	// Close, after which Watch starts none. Both under watchMu. watches counts the Watches'
	// goroutines, for Close to wait for.
	watchMu  sync.Mutex
	watching map[*watch]context.CancelFunc
	closing  bool
	watches  sync.WaitGroup
	// pingAfter is how long a Watch waits in silence before it pings: watchPingAfter, but
	// in tests.
	pingAfter time.Duration
}

// Option configures Open and New.
type Option func(*Store) error

// WithMaxContent sets the largest content, in bytes, that Append and AppendBatch accept
// (default DefaultMaxContent). bytes must be at least 1.
func WithMaxContent(bytes int) Option {
	return func(s *Store) error {
		if bytes < 1 {
			return fmt.Errorf("pgstore: WithMaxContent(%d): the limit must be at least 1 byte", bytes)
		}
		s.maxContent = bytes
		return nil
	}
}

// Open connects to the database dsn names (a libpq URL or keyword/value string, as
// pgxpool.ParseConfig reads it, pool settings such as pool_max_conns included), creates or
// migrates the schema, and returns a Store that owns the pool. Close it when done.
//
// Migrating is safe when several processes open the same database at once: each migration
// runs in one transaction under a PostgreSQL advisory lock. A database whose schema is newer
// than this package is an error matching ErrSchemaTooNew. ctx bounds connecting and
// migrating only.
func Open(ctx context.Context, dsn string, opts ...Option) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: open: %w", err)
	}
	s, err := newStore(ctx, pool, true, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// New returns a Store over the caller's pool, after creating or migrating the schema as Open
// does. The pool stays the caller's: Close does not close it.
func New(ctx context.Context, pool *pgxpool.Pool, opts ...Option) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgstore: New with a nil pool")
	}
	return newStore(ctx, pool, false, opts)
}

func newStore(ctx context.Context, pool *pgxpool.Pool, own bool, opts []Option) (*Store, error) {
	s := &Store{pool: pool, ownPool: own, maxContent: DefaultMaxContent, pingAfter: watchPingAfter}
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	if err := migrate(ctx, pool, len(migrations)); err != nil {
		return nil, err
	}
	return s, nil
}

// Close ends every Watch, closing its channel and its connection, and waits for them; then
// it closes the pool if Open made it, waiting for connections in use to be returned; a pool
// given to New is left open. Close always returns nil and may be called more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		s.watchMu.Lock()
		s.closing = true
		for _, end := range s.watching {
			end()
		}
		s.watchMu.Unlock()
		s.watches.Wait()
		if s.ownPool {
			s.pool.Close()
		}
	})
	return nil
}

// Desks returns the names of the desks that hold at least one row, in ascending byte order.
func (s *Store) Desks(ctx context.Context) ([]string, error) {
	names, err := deskNames(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("pgstore: desks: %w", err)
	}
	return names, nil
}

// deskNames lists the desks, as Desks does, on q.
func deskNames(ctx context.Context, q querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT name FROM transcript_desks ORDER BY name COLLATE "C"`)
	if err != nil {
		return nil, err
	}
	return pgx.AppendRows([]string(nil), rows, pgx.RowTo[string])
}
