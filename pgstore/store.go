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
	"github.com/sharedesk/transcript/internal/watchset"
)

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
	// searchKey is the secret of the search index's keys, read once the schema is current.
	searchKey searchKey
	// replicas are WithStandbys' standbys, which Logs read from.
	replicas replicas
	// changes count, for each desk, the commits the Store knows may have changed rows
	// already read: its own appends that hold a correction, every commit its Watch hears
	// of, and a head Head reads above the last it read (bump). A Log's rows read ahead are taken only while their desk's count is
	// the one they were read under, so that a read after a correction's commit, which the
	// Store returned or its Watch named, never answers with a row as it was before.
	changes fences
	// heads are, for each desk, the newest head Head read: a higher one bumps changes.
	heads fences
	hooks hooks

	// watches is every Watch running, for Close to end and wait for.
	watches watchset.Set[*watch]
	// fenceStop and fenceDone end and wait for watchFences, in a Store with standbys.
	fenceStop, fenceDone chan struct{}

	// readOnly, when not empty, says why the store refuses writes: ReadOnly, or a database
	// in recovery (recovery), which cannot LISTEN either.
	readOnly string
	recovery bool
	// initSchema is InitSchema's: migrate creates the schema in a database holding other
	// tables.
	initSchema bool
	// indexProgress is WithIndexProgress's, or nil.
	indexProgress IndexProgress
	// searchWork counts the work of the Logs' searches (SearchWork).
	searchWork searchWork
}

// hooks are a Store's test seams, set by the tests only: their zero value is the Store as
// it runs.
type hooks struct {
	// beforeCommit, when set, runs inside an append's transaction after its rows are
	// inserted and before it commits; every append then sends its COMMIT in a round trip
	// of its own, after the hook.
	beforeCommit func(ctx context.Context, desk string, rows []transcript.Message)
	// notifySQL, when set, is sent in the place of the package's notifySQL after an
	// append's COMMIT.
	notifySQL string
	// pingAfter, when set, is how long a Watch waits in silence before it pings, in the
	// place of watchPingAfter.
	pingAfter time.Duration
	// standbyOpenWait, when set, is how long Open waits for a standby to replay the
	// primary's schema, in the place of standbyOpenWait.
	standbyOpenWait time.Duration
	// noTerms, when set, makes appends write no terms (transcript_terms): an append as it
	// was before search, for the benchmarks of the index's cost.
	noTerms bool
	// noFenceWatch, when set, keeps a Store with standbys from running watchFences: each
	// read then learns its desk's head on the primary.
	noFenceWatch bool
	// reads counts the Logs' queries; waitsRanOut the waits for a lagging standby that
	// ended without it.
	reads       atomic.Int64
	waitsRanOut atomic.Int64
}

// Option configures Open and New.
type Option func(*Store) error

// WithMaxContent sets the largest content, in bytes, that Append and AppendBatch accept
// (default transcript.MaxContent, the most any store keeps): a lower limit, 1 to
// transcript.MaxContent.
func WithMaxContent(bytes int) Option {
	return func(s *Store) error {
		if bytes < 1 || bytes > transcript.MaxContent {
			return fmt.Errorf("pgstore: WithMaxContent(%d): the limit must be 1 to %d bytes", bytes, transcript.MaxContent)
		}
		s.maxContent = bytes
		return nil
	}
}

// Open connects to the database dsn names (a libpq URL or keyword/value string, as
// pgxpool.ParseConfig reads it, pool settings such as pool_max_conns included), creates or
// migrates the schema, and returns a Store that owns the pool. Close it when done.
//
// Open creates the schema in a database that holds no table yet; a database holding other
// tables but no store is an error matching ErrNotStore, and is left as it was, unless the
// InitSchema option says to create the store's tables (all named transcript_*) beside
// them. A server that cannot be reached is an error that unwraps to *pgconn.ConnectError.
//
// Migrating is safe when several processes open the same database at once: each migration
// runs in one transaction under a PostgreSQL advisory lock. A database whose schema is newer
// than this package is an error matching ErrSchemaTooNew. ctx bounds connecting, migrating
// and the standbys' checks (WithStandbys) only.
//
// A database in recovery (pg_is_in_recovery: a hot standby), or any database with the
// ReadOnly option, is opened read-only: its schema's version is checked instead of migrated
// (an older one is an error matching ErrSchemaBehind, naming both versions), and writes
// are refused with ErrReadOnly. WithStandbys, which needs the primary, is an error on a
// database in recovery; with ReadOnly on the primary, reads go to the standbys as they do
// without it.
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

// InitSchema lets Open and New create the store's schema in a database that holds other
// tables: a host that keeps its desks in its own database says so with it. Without it such
// a database is refused (ErrNotStore). It changes nothing for a database that holds a
// store already, or no table at all.
func InitSchema() Option {
	return func(s *Store) error {
		s.initSchema = true
		return nil
	}
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
	s := &Store{pool: pool, ownPool: own, maxContent: transcript.MaxContent}
	s.replicas = replicas{wait: DefaultStandbyWait, primary: pool, hooks: &s.hooks}
	for _, opt := range opts {
		if err := opt(s); err != nil {
			return nil, err
		}
	}
	recovery, err := inRecovery(ctx, pool)
	if err != nil {
		return nil, openError(err)
	}
	if recovery {
		s.recovery, s.readOnly = true, "its database is a standby, in recovery"
	}
	if s.recovery && len(s.replicas.configs) > 0 {
		return nil, fmt.Errorf("pgstore: open: WithStandbys needs the primary, and this store is read-only (%s): give the primary's DSN, and the standbys' to WithStandbys", s.readOnly)
	}
	if s.readOnly != "" {
		if err := s.checkReadOnlySchema(ctx); err != nil {
			return nil, err
		}
	} else if err := migrate(ctx, pool, len(migrations), s.initSchema, s.indexProgress); err != nil {
		return nil, err
	}
	if err := pool.QueryRow(ctx, `SELECT key FROM transcript_search_key`).Scan((*[]byte)(&s.searchKey)); err != nil {
		return nil, fmt.Errorf("pgstore: open: read the search index's key: %w", err)
	}
	if err := s.replicas.open(ctx, len(migrations)); err != nil {
		s.replicas.close()
		return nil, err
	}
	if s.replicas.active() && !s.hooks.noFenceWatch {
		s.fenceStop, s.fenceDone = make(chan struct{}), make(chan struct{})
		go s.watchFences(s.fenceStop, s.fenceDone)
	}
	return s, nil
}

// writable returns nil, or for a read-only store an error matching ErrReadOnly that says
// which write was refused (what: "append to desk \"eng\"") and why.
func (s *Store) writable(what string) error {
	if s.readOnly == "" {
		return nil
	}
	return fmt.Errorf("%w: %s refused: %s; write through the primary", ErrReadOnly, what, s.readOnly)
}

// Close ends every Watch, closing its channel and its connection, and waits for them; then
// it closes the standbys' pools, and the pool if Open made it, waiting for connections in
// use to be returned; a pool given to New is left open. Close always returns nil and may be called more than once.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if s.fenceStop != nil {
			close(s.fenceStop)
		}
		s.watches.Close()
		if s.fenceDone != nil {
			<-s.fenceDone
		}
		s.replicas.close()
		if s.ownPool {
			s.pool.Close()
		}
	})
	return nil
}

// Desks returns the names of the desks that hold at least one row, in ascending byte order.
// A Store with standbys reads them on the primary.
func (s *Store) Desks(ctx context.Context) ([]string, error) {
	desks, err := deskHeads(ctx, s.pool)
	if err != nil {
		return nil, fmt.Errorf("pgstore: desks: %w", err)
	}
	var names []string
	for _, d := range desks {
		names = append(names, d.name)
	}
	return names, nil
}

// deskHead is a desk's name and the Seq of its newest row.
type deskHead struct {
	name string
	head int64
}

// deskHeads lists the desks, as Desks does, with their heads, on q.
func deskHeads(ctx context.Context, q querier) ([]deskHead, error) {
	rows, err := q.Query(ctx, `SELECT name, head FROM transcript_desks ORDER BY name COLLATE "C"`)
	if err != nil {
		return nil, err
	}
	return pgx.AppendRows([]deskHead(nil), rows, func(row pgx.CollectableRow) (deskHead, error) {
		var d deskHead
		err := row.Scan(&d.name, &d.head)
		return d, err
	})
}
