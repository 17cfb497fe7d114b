package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// benchStore is a store the benchmarks can fill in batches and watch.
type benchStore interface {
	server.Store
	server.Watcher
	server.HeadReader
	AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error
}

var (
	_ benchStore = (*sqlitestore.Store)(nil)
	_ benchStore = (*pgstore.Store)(nil)
)

// benchStoreKinds are the stores the service benchmarks run on. PostgreSQL needs a server
// (scripts/pgtest.sh sets TRANSCRIPT_PG_DSN); without one its sub-benchmarks skip.
var benchStoreKinds = []struct {
	name string
	open func(testing.TB) benchStore
}{
	{"sqlite", func(tb testing.TB) benchStore {
		st, err := sqlitestore.Open(context.Background(), filepath.Join(tb.TempDir(), "bench.db"))
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		return st
	}},
	{"postgres", func(tb testing.TB) benchStore {
		dsn := pgtest.Database(tb, "server")
		st, err := pgstore.Open(context.Background(), dsn)
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { st.Close() })
		benchDSNs.Store(st, dsn)
		tb.Cleanup(func() { benchDSNs.Delete(st) })
		return st
	}},
}

// benchDSNs holds the database of each PostgreSQL store the benchmarks opened, by store.
var benchDSNs sync.Map

// benchAnalyze gathers the statistics of st's tables, when st is a PostgreSQL store, as
// autovacuum does for a database in use, so that PostgreSQL plans the benchmarks'
// statements as it plans a live desk's, not a new table's.
func benchAnalyze(tb testing.TB, st benchStore) {
	tb.Helper()
	dsn, ok := benchDSNs.Load(st)
	if !ok {
		return
	}
	pool, err := pgxpool.New(context.Background(), dsn.(string))
	if err != nil {
		tb.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(context.Background(), "ANALYZE"); err != nil {
		tb.Fatal(err)
	}
}

// benchFill appends rows rows to desk "eng" of st, in batches: the rows of bench_test.go's
// benchDesk (an agent of seven each, a reply to the row two below in about a third of
// them, an aside to the operator in every tenth), so that figures on either store match
// BenchmarkView's desk; on PostgreSQL it then gathers the tables' statistics (benchAnalyze).
func benchFill(tb testing.TB, st benchStore, rows int) {
	tb.Helper()
	var batch []transcript.Message
	for i := 1; i <= rows; i++ {
		m := transcript.Message{Author: transcript.Agent(fmt.Sprint("a", i%7), "Agent"), Content: fmt.Sprintf("message %d of the benchmark desk, of ordinary length for a chat", i)}
		switch {
		case i%10 == 0:
			m.Audience = []transcript.Author{transcript.Operator()}
		case i%3 == 0 && (i-2)%10 != 0:
			m.Parent = transcript.Sequence(i - 2)
		}
		batch = append(batch, m)
		if len(batch) == 5000 || i == rows {
			if err := st.AppendBatch(context.Background(), "eng", batch); err != nil {
				tb.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	benchAnalyze(tb, st)
}

// benchToken adds a token for p on desk to st and returns its secret.
func benchToken(tb testing.TB, st server.Store, desk string, p transcript.Author) string {
	tb.Helper()
	secret, tok, err := token.New(desk, p, time.Now())
	if err != nil {
		tb.Fatal(err)
	}
	if err := st.AddToken(context.Background(), tok); err != nil {
		tb.Fatal(err)
	}
	return secret
}

// benchCountingStore counts what the server asks of its store besides appends: reads of
// rows (ReadBefore on any desk's Log, and Head) and tokens (lookups and lists). It keeps the
// store's Watcher, and served its HeadWatcher.
type benchCountingStore struct {
	benchStore
	rowReads   atomic.Int64
	tokenReads atomic.Int64
}

func (s *benchCountingStore) Log(desk string) transcript.Log {
	return benchCountingLog{s.benchStore.Log(desk), &s.rowReads}
}

func (s *benchCountingStore) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	s.tokenReads.Add(1)
	return s.benchStore.TokenByHash(ctx, hash)
}

func (s *benchCountingStore) Tokens(ctx context.Context) ([]token.Token, error) {
	s.tokenReads.Add(1)
	return s.benchStore.Tokens(ctx)
}

// Head counts the read of a desk's head with the reads of rows.
func (s *benchCountingStore) Head(ctx context.Context, desk string) (transcript.Sequence, error) {
	s.rowReads.Add(1)
	return s.benchStore.Head(ctx, desk)
}

// served returns s as the server's store: with the store's HeadWatcher when it has one.
func (s *benchCountingStore) served() server.Store {
	if hw, ok := s.benchStore.(server.HeadWatcher); ok {
		return benchHeadWatching{s, hw}
	}
	return s
}

// benchHeadWatching is a benchCountingStore over a store that is a HeadWatcher.
type benchHeadWatching struct {
	*benchCountingStore
	w server.HeadWatcher
}

func (s benchHeadWatching) WatchHeads(ctx context.Context) (<-chan map[string]transcript.Sequence, error) {
	return s.w.WatchHeads(ctx)
}

// reads is every read counted so far.
func (s *benchCountingStore) reads() int64 { return s.rowReads.Load() + s.tokenReads.Load() }

type benchCountingLog struct {
	transcript.Log
	n *atomic.Int64
}

func (l benchCountingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	l.n.Add(1)
	return l.Log.ReadBefore(ctx, before, limit)
}

// benchTokenCache is a store whose token lookups are remembered for good: what a server
// that cached them would cost on every request after the first (with a TTL, a revocation
// would take up to the TTL to apply). It measures the fix BENCHMARKS.md weighs; the
// service itself looks every request's token up.
type benchTokenCache struct {
	server.Store
	mu     sync.Mutex
	tokens map[[32]byte]token.Token
}

func (c *benchTokenCache) TokenByHash(ctx context.Context, hash [32]byte) (token.Token, error) {
	c.mu.Lock()
	t, ok := c.tokens[hash]
	c.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := c.Store.TokenByHash(ctx, hash)
	if err != nil {
		return t, err
	}
	c.mu.Lock()
	if c.tokens == nil {
		c.tokens = make(map[[32]byte]token.Token)
	}
	c.tokens[hash] = t
	c.mu.Unlock()
	return t, nil
}
