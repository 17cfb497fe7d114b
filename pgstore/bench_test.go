package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/pgstore"
)

// The benchmarks share one database, transcript_bench, created on first use, with a desk of
// each size bulk-loaded (COPY) when a benchmark first asks for it. TestMain drops it after
// the run unless PGSTORE_BENCH_KEEP=1, which scripts/pgbench.sh sets so that its runs, on
// one throwaway server, load the desks once.
var bench struct {
	once  sync.Once
	err   error
	st    *pgstore.Store
	pool  *pgxpool.Pool
	admin *pgxpool.Pool // the test server's own database, to drop the benchmark database
	mu    sync.Mutex
	desks map[int64]string // loaded desks by size
}

const benchDatabase = "transcript_bench"

// benchSizes are the desk sizes of BenchmarkChannel.
var benchSizes = []int64{1_000, 100_000, 1_000_000}

func TestMain(m *testing.M) {
	code := m.Run()
	if bench.st != nil {
		bench.st.Close()
		bench.pool.Close()
		if os.Getenv("PGSTORE_BENCH_KEEP") != "1" {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			if _, err := bench.admin.Exec(ctx, "DROP DATABASE "+benchDatabase+" WITH (FORCE)"); err != nil {
				fmt.Fprintln(os.Stderr, "pgstore: drop the benchmark database:", err)
			}
			cancel()
		}
	}
	os.Exit(code)
}

// benchStore returns the benchmark database's store (pool of up to 32 connections) and a
// pool of its own on the same database.
func benchStore(b *testing.B) (*pgstore.Store, *pgxpool.Pool) {
	b.Helper()
	pool := adminPool(b)
	bench.admin = pool
	bench.once.Do(func() {
		ctx := context.Background()
		var exists bool
		if bench.err = pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)`, benchDatabase).Scan(&exists); bench.err != nil {
			return
		}
		if !exists {
			if _, bench.err = pool.Exec(ctx, "CREATE DATABASE "+benchDatabase); bench.err != nil {
				return
			}
		}
		dsn := withPoolSize(withDatabase(b, serverDSN(b), benchDatabase), 32)
		if bench.st, bench.err = pgstore.Open(ctx, dsn); bench.err != nil {
			return
		}
		bench.pool, bench.err = pgxpool.New(ctx, dsn)
		bench.desks = map[int64]string{}
	})
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.st, bench.pool
}

// withPoolSize returns dsn with pool_max_conns set to n.
func withPoolSize(dsn string, n int) string { return withParam(dsn, "pool_max_conns", fmt.Sprint(n)) }

// benchDesk returns the name of a desk of n rows (no more than benchdesk.Rows allows) of
// loadRow, loading it on first use.
func benchDesk(b *testing.B, n int64) string {
	b.Helper()
	n = int64(benchdesk.Rows(b, int(n)))
	_, pool := benchStore(b)
	bench.mu.Lock()
	defer bench.mu.Unlock()
	if d, ok := bench.desks[n]; ok {
		return d
	}
	d := fmt.Sprintf("rows-%d", n)
	var head int64
	err := pool.QueryRow(context.Background(), `SELECT coalesce(max(head), 0) FROM transcript_desks WHERE name = $1`, d).Scan(&head)
	switch {
	case err != nil:
		b.Fatal(err)
	case head == 0:
		start := time.Now()
		loadDesk(b, pool, d, n)
		b.Logf("loaded desk %s with COPY in %v", d, time.Since(start).Round(time.Millisecond))
	case head != n:
		b.Fatalf("desk %s of the benchmark database holds %d rows, want %d", d, head, n)
	}
	bench.desks[n] = d
	return d
}

// loadAll reads every row of desk, oldest first.
func loadAll(ctx context.Context, pool *pgxpool.Pool, desk string) ([]transcript.Message, error) {
	rows, err := pool.Query(ctx, `
		SELECT seq, parent, author_kind, author_id, author_label, content, at, audience, key, corrects, redacted, revised
		FROM transcript_messages WHERE desk = $1 ORDER BY seq`, desk)
	if err != nil {
		return nil, err
	}
	return scanMessages(rows)
}

// channelImpls are the ways BenchmarkChannel computes a desk's channel view (newest 30).
var channelImpls = []struct {
	name string
	run  func(ctx context.Context, st *pgstore.Store, pool *pgxpool.Pool, desk string) ([]transcript.Message, error)
}{
	{"Project", func(ctx context.Context, st *pgstore.Store, _ *pgxpool.Pool, desk string) ([]transcript.Message, error) {
		p, err := transcript.Project(ctx, st.Log(desk), transcript.Query{Conversation: transcript.Conversation{Desk: desk}})
		return p.Messages, err
	}},
	// LoadAll reads the whole desk into memory and projects it there.
	{"LoadAll", func(ctx context.Context, _ *pgstore.Store, pool *pgxpool.Pool, desk string) ([]transcript.Message, error) {
		rows, err := loadAll(ctx, pool, desk)
		if err != nil {
			return nil, err
		}
		log, err := memlog.From(rows)
		if err != nil {
			return nil, err
		}
		p, err := transcript.Project(ctx, log, transcript.Query{Conversation: transcript.Conversation{Desk: desk}})
		return p.Messages, err
	}},
	{"SQLWindow", sqlImpl("SQLWindow")},
	{"SQLLateral", sqlImpl("SQLLateral")},
	{"SQLExists", sqlImpl("SQLExists")},
	{"SQLBounded", sqlImpl("SQLBounded")},
}

func sqlImpl(name string) func(context.Context, *pgstore.Store, *pgxpool.Pool, string) ([]transcript.Message, error) {
	return func(ctx context.Context, _ *pgstore.Store, pool *pgxpool.Pool, desk string) ([]transcript.Message, error) {
		return queryChannel(ctx, pool, channelSQL[name], desk, 0, transcript.SessionWindow)
	}
}

// BenchmarkChannel: a desk's channel view (newest 30 roots and first replies) through the
// store with transcript.Project, against loading the whole desk and projecting in Go, and
// against hand-written SQL returning the same view. Every way's result is checked against
// Project's first.
func BenchmarkChannel(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			st, pool := benchStore(b)
			desk := benchDesk(b, n)
			ctx := context.Background()
			want, err := channelImpls[0].run(ctx, st, pool, desk)
			if err != nil || len(want) != transcript.SessionWindow {
				b.Fatalf("Project: %d messages, %v", len(want), err)
			}
			for _, impl := range channelImpls {
				b.Run("impl="+impl.name, func(b *testing.B) {
					got, err := impl.run(ctx, st, pool, desk)
					if err != nil {
						b.Fatal(err)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						b.Fatalf("%s disagrees with Project (-project +%s):\n%s", impl.name, impl.name, diff)
					}
					for b.Loop() {
						if _, err := impl.run(ctx, st, pool, desk); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

// benchBatch is the size of BenchmarkAppendBatch's batches.
const benchBatch = 1000

// batchMessages returns n messages as an append would get them: roots and replies to the
// batch's own roots.
func batchMessages(n int) []transcript.Message {
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		m := loadRow(int64(i + 1))
		m.Seq, m.At = 0, time.Time{}
		if m.Parent != 0 {
			m.Parent = transcript.BatchParent(int(m.Parent) - 1)
		}
		msgs[i] = m
	}
	return msgs
}

// BenchmarkAppendBatch: storing benchBatch rows with AppendBatch (one multi-row INSERT)
// against a raw INSERT loop in one transaction (one statement per row, the head moved once)
// and against COPY, the bulk loader, in one transaction. ns/row is the figure to compare.
func BenchmarkAppendBatch(b *testing.B) {
	msgs := batchMessages(benchBatch)
	b.Run("impl=AppendBatch", func(b *testing.B) {
		st, _ := benchStore(b)
		desk := fmt.Sprintf("batch-%d", rand.Uint64())
		for b.Loop() {
			if err := st.AppendBatch(context.Background(), desk, msgs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/row")
	})
	for _, impl := range []string{"InsertLoop", "Copy"} {
		b.Run("impl="+impl, func(b *testing.B) {
			_, pool := benchStore(b)
			desk := fmt.Sprintf("raw-%d", rand.Uint64())
			ctx := context.Background()
			for b.Loop() {
				if err := rawAppend(ctx, pool, desk, msgs, impl == "Copy"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/row")
		})
	}
}

// rawAppend stores msgs in desk in one transaction: the head moved once, then one INSERT
// per row, or COPY.
func rawAppend(ctx context.Context, pool *pgxpool.Pool, desk string, msgs []transcript.Message, copy bool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	var head int64
	err = tx.QueryRow(ctx, `
		INSERT INTO transcript_desks AS d (name, head) VALUES ($1, $2)
		ON CONFLICT (name) DO UPDATE SET head = d.head + excluded.head RETURNING head`, desk, len(msgs)).Scan(&head)
	if err != nil {
		return err
	}
	base := head - int64(len(msgs))
	now := time.Now().UTC()
	row := func(i int) []any {
		m := msgs[i]
		parent := int64(m.Parent)
		if j, ok := m.Parent.BatchIndex(); ok {
			parent = base + int64(j) + 1
		}
		return []any{desk, base + int64(i) + 1, parent, int16(m.Author.Kind), m.Author.ID, m.Author.Label, m.Content, now}
	}
	if copy {
		cols := []string{"desk", "seq", "parent", "author_kind", "author_id", "author_label", "content", "at"}
		_, err := tx.CopyFrom(ctx, pgx.Identifier{"transcript_messages"}, cols, pgx.CopyFromSlice(len(msgs), func(i int) ([]any, error) { return row(i), nil }))
		if err != nil {
			return err
		}
	} else {
		for i := range msgs {
			if _, err := tx.Exec(ctx, `
				INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, row(i)...); err != nil {
				return err
			}
		}
	}
	return tx.Commit(ctx)
}

// benchWriters is how many goroutines BenchmarkAppendConcurrent appends from.
const benchWriters = 16

// BenchmarkAppendConcurrent: Append throughput of 16 goroutines writing to 16 desks (one
// each) against the same 16 goroutines writing to one desk, whose appends the desk lock
// serialises. ns/op is wall time per append over all goroutines: its inverse is the
// throughput.
func BenchmarkAppendConcurrent(b *testing.B) {
	for _, desks := range []int{1, benchWriters} {
		b.Run(fmt.Sprintf("desks=%d", desks), func(b *testing.B) {
			st, _ := benchStore(b)
			prefix := fmt.Sprintf("conc-%d-", rand.Uint64())
			for d := range desks { // the desks exist before the clock starts
				if _, err := st.Append(context.Background(), prefix+fmt.Sprint(d), transcript.Message{Author: alice, Content: "first"}); err != nil {
					b.Fatal(err)
				}
			}
			var next atomic.Int64
			b.SetParallelism((benchWriters + runtime.GOMAXPROCS(0) - 1) / runtime.GOMAXPROCS(0))
			m := loadRow(2)
			m.Parent, m.Seq, m.At = 0, 0, time.Time{}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				desk := prefix + fmt.Sprint(int(next.Add(1)-1)%desks)
				for pb.Next() {
					if _, err := st.Append(context.Background(), desk, m); err != nil {
						b.Error(err)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "appends/s")
		})
	}
}

// BenchmarkAppend: one goroutine appending to one desk, the latency of one Append.
func BenchmarkAppend(b *testing.B) {
	st, _ := benchStore(b)
	desk := fmt.Sprintf("single-%d", rand.Uint64())
	m := loadRow(2)
	m.Parent, m.Seq, m.At = 0, 0, time.Time{}
	for b.Loop() {
		if _, err := st.Append(context.Background(), desk, m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChannelPaired runs Project and the fastest hand-written query (SQLExists)
// alternately, one call of each per iteration, and reports each one's time per call and
// their ratio: on a shared machine both see the same stretches of load, so the ratio holds
// still where the separate benchmarks' times spread widely.
func BenchmarkChannelPaired(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("rows=%d", n), func(b *testing.B) {
			st, pool := benchStore(b)
			desk := benchDesk(b, n)
			ctx := context.Background()
			project, sql := channelImpls[0], sqlImpl("SQLExists")
			var projectTime, sqlTime time.Duration
			for b.Loop() {
				start := time.Now()
				if _, err := project.run(ctx, st, pool, desk); err != nil {
					b.Fatal(err)
				}
				mid := time.Now()
				if _, err := sql(ctx, st, pool, desk); err != nil {
					b.Fatal(err)
				}
				projectTime += mid.Sub(start)
				sqlTime += time.Since(mid)
			}
			b.ReportMetric(float64(projectTime.Nanoseconds())/float64(b.N), "project-ns/op")
			b.ReportMetric(float64(sqlTime.Nanoseconds())/float64(b.N), "sql-ns/op")
			b.ReportMetric(float64(sqlTime)/float64(projectTime), "sql/project")
		})
	}
}
