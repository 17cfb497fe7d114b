package sqlitestore

// Benchmarks for the store; BENCHMARKS.md holds the figures, the ratios and the command that
// made them. The desks are cached database files (bench_desk_test.go), so only the first run
// pays for building the 1,000,000-row desk.

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
)

// benchSizes are the desk sizes of the read benchmarks.
var benchSizes = []int{1_000, 100_000, 1_000_000}

// BenchmarkChannel compares the channel projection through the store with its baselines, at
// every desk size: impl=Project is transcript.Project over the store's Log; impl=LoadAll
// loads the whole desk and filters in Go; impl=SQL-* are the hand-written queries.
func BenchmarkChannel(b *testing.B) {
	ctx := context.Background()
	for _, rows := range benchSizes {
		b.Run(fmt.Sprintf("rows=%d/impl=Project", rows), func(b *testing.B) {
			log := benchStore(b, rows).Log(benchDeskName)
			var proj transcript.Projection
			defer benchCPU(b)()
			for b.Loop() {
				var err error
				if proj, err = transcript.Project(ctx, log, transcript.Query{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(proj.Scanned), "rows/op")
			b.ReportMetric(float64(proj.Reads), "reads/op")
		})
		b.Run(fmt.Sprintf("rows=%d/impl=LoadAll", rows), func(b *testing.B) {
			st := benchStore(b, rows)
			defer benchCPU(b)()
			for b.Loop() {
				all, err := st.loadAll(ctx, benchDeskName)
				if err != nil {
					b.Fatal(err)
				}
				channelInGo(all)
			}
		})
		for _, name := range []string{"window", "correlated", "bounded"} {
			b.Run(fmt.Sprintf("rows=%d/impl=SQL-%s", rows, name), func(b *testing.B) {
				st := benchStore(b, rows)
				defer benchCPU(b)()
				for b.Loop() {
					if _, err := st.channelBySQL(ctx, channelSQL[name], benchDeskName); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkChannelAsides compares the channel projection through the store for
// benchdesk.Outsider, a viewer outside every aside, on the 100,000-row desk without asides
// (asides=0) and on the same desk with about 20% of its rows asides (asides=20,
// benchAsideMessages): the cost of the audience column and its cache, and of the rows the
// walk reads past the asides it elides. elided/op is the rows the view elides.
func BenchmarkChannelAsides(b *testing.B) {
	ctx := context.Background()
	for _, percent := range []int{0, 20} {
		b.Run(fmt.Sprintf("rows=100000/asides=%d", percent), func(b *testing.B) {
			log := benchAsideStore(b, 100_000, percent).Log(benchDeskName)
			q := transcript.Query{Viewer: benchdesk.Outsider}
			var proj transcript.Projection
			defer benchCPU(b)()
			for b.Loop() {
				var err error
				if proj, err = transcript.Project(ctx, log, q); err != nil {
					b.Fatal(err)
				}
			}
			elided := 0
			for _, e := range proj.Elided {
				elided += e.Count
			}
			b.ReportMetric(float64(proj.Scanned), "rows/op")
			b.ReportMetric(float64(proj.Reads), "reads/op")
			b.ReportMetric(float64(elided), "elided/op")
		})
	}
}

// BenchmarkReadBefore512 reads the newest 512 rows of a 100,000-row desk: the port's
// largest read.
func BenchmarkReadBefore512(b *testing.B) {
	ctx := context.Background()
	log := benchStore(b, 100_000).Log(benchDeskName)
	defer benchCPU(b)()
	for b.Loop() {
		page, err := log.ReadBefore(ctx, 0, transcript.PageSize)
		if err != nil || len(page.Messages) != transcript.PageSize {
			b.Fatal(len(page.Messages), err)
		}
	}
}

// BenchmarkAppend appends one row at a time to a fresh store.
func BenchmarkAppend(b *testing.B) {
	ctx := context.Background()
	st := benchFreshStore(b)
	msgs := benchMessages(1000)
	i := 0
	defer benchCPU(b)()
	for b.Loop() {
		m := msgs[i%len(msgs)]
		m.Parent = 0
		if _, err := st.Append(ctx, benchDeskName, m); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkAppendKey appends one row at a time to a fresh store, as BenchmarkAppend does,
// without a key (key=none) and with a fresh unique key each (key=new): the cost of the
// key's lookup in the write transaction and of its index entry.
func BenchmarkAppendKey(b *testing.B) {
	ctx := context.Background()
	msgs := benchMessages(1000)
	for _, keyed := range []bool{false, true} {
		name := "key=none"
		if keyed {
			name = "key=new"
		}
		b.Run(name, func(b *testing.B) {
			st := benchFreshStore(b)
			i := 0
			defer benchCPU(b)()
			for b.Loop() {
				m := msgs[i%len(msgs)]
				m.Parent = 0
				if keyed {
					m.Key = benchKey(0, i)
				}
				if _, err := st.Append(ctx, benchDeskName, m); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkAppendBatchKey stores batches of 1,000 rows (benchMessages, parents as
// BatchParent) through AppendBatch to one desk: without keys (key=none); with fresh unique
// keys (key=new: each batch an import of new lines, whose keys the desk's lookup does not
// find); with fresh unique keys into a new desk each (key=first: the first import of a
// file, with nothing to look up); and all present (key=present: a re-import of the batch
// the desk holds, which reads the rows and writes nothing). ns/row is per row of the batch.
func BenchmarkAppendBatchKey(b *testing.B) {
	ctx := context.Background()
	base := benchMessages(benchBatchRows)
	for i := range base {
		if p := base[i].Parent; p != 0 {
			base[i].Parent = transcript.BatchParent(int(p) - 1)
		}
	}
	keyedBatch := func(batch int) []transcript.Message {
		msgs := slices.Clone(base)
		for i := range msgs {
			msgs[i].Key = benchKey(batch, i)
		}
		return msgs
	}
	for _, mode := range []string{"none", "new", "first", "present"} {
		b.Run("key="+mode, func(b *testing.B) {
			st := benchFreshStore(b)
			msgs, batch, desk := base, 0, benchDeskName
			if mode == "present" {
				msgs = keyedBatch(0)
				if err := st.AppendBatch(ctx, benchDeskName, msgs); err != nil {
					b.Fatal(err)
				}
			}
			defer benchCPU(b)()
			for b.Loop() {
				switch mode {
				case "new":
					msgs = keyedBatch(batch) // 1,000 short strings: about 1% of the batch
				case "first":
					msgs, desk = keyedBatch(0), benchDeskName+strconv.Itoa(batch)
				}
				if err := st.AppendBatch(ctx, desk, msgs); err != nil {
					b.Fatal(err)
				}
				batch++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatchRows), "ns/row")
		})
	}
}

// BenchmarkLookupKeys looks up the keys of a 1,000-row batch the desk holds (found=all: a
// re-import's lookup, as the import command makes it) and 1,000 keys it does not hold
// (found=none: a first import's into a desk with rows). ns/key is per key looked up.
func BenchmarkLookupKeys(b *testing.B) {
	ctx := context.Background()
	st := benchFreshStore(b)
	msgs := benchMessages(benchBatchRows)
	present, absent := make([]string, len(msgs)), make([]string, len(msgs))
	for i := range msgs {
		msgs[i].Key, present[i], absent[i] = benchKey(0, i), benchKey(0, i), benchKey(1, i)
	}
	if err := st.AppendBatch(ctx, benchDeskName, msgs); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		keys  []string
		found int
	}{{"found=all", present, len(present)}, {"found=none", absent, 0}} {
		b.Run(c.name, func(b *testing.B) {
			defer benchCPU(b)()
			for b.Loop() {
				rows, err := st.LookupKeys(ctx, benchDeskName, c.keys)
				if err != nil || len(rows) != c.found {
					b.Fatal(len(rows), err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c.keys)), "ns/key")
		})
	}
}

// benchKey returns the key of row i of batch, as an importer might name it.
func benchKey(batch, i int) string {
	return "slack:" + strconv.Itoa(1712345678+batch) + "." + strconv.Itoa(100000+i)
}

// benchBatchRows is the size of every batch of the append benchmarks.
const benchBatchRows = 1000

// BenchmarkAppendBatch stores batches of 1,000 rows, through AppendBatch
// (impl=AppendBatch) and through a raw INSERT loop in one transaction on the same
// connection (impl=RawInsert), which assigns the same sequences but validates nothing.
// ns/row is per row stored.
func BenchmarkAppendBatch(b *testing.B) {
	ctx := context.Background()
	msgs := benchMessages(benchBatchRows)
	b.Run("impl=AppendBatch", func(b *testing.B) {
		st := benchFreshStore(b)
		defer benchCPU(b)()
		for b.Loop() {
			if err := st.AppendBatch(ctx, benchDeskName, msgs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatchRows), "ns/row")
	})
	b.Run("impl=RawInsert", func(b *testing.B) {
		st := benchFreshStore(b)
		if _, err := st.Append(ctx, benchDeskName, msgs[0]); err != nil { // the desk's row
			b.Fatal(err)
		}
		head := int64(1)
		defer benchCPU(b)()
		for b.Loop() {
			if err := st.rawInsert(ctx, benchDeskName, head, msgs); err != nil {
				b.Fatal(err)
			}
			head += benchBatchRows
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatchRows), "ns/row")
	})
}

// rawInsert is the baseline of AppendBatch: one transaction, each distinct author's row
// found or created once, then one prepared INSERT per row, sequences from head+1, parents
// taken as they are, no validation.
func (s *Store) rawInsert(ctx context.Context, desk string, head int64, msgs []transcript.Message) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var id int64
	if err := tx.QueryRowContext(ctx, `SELECT id FROM desks WHERE name = ?`, desk).Scan(&id); err != nil {
		return err
	}
	authors := make(map[transcript.Author]int64)
	for _, m := range msgs {
		a := m.Author
		if _, ok := authors[a]; ok {
			continue
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO authors (kind, ident, label) VALUES (?, ?, ?)`, int64(a.Kind), a.ID, a.Label); err != nil {
			return err
		}
		var ref int64
		if err := tx.QueryRowContext(ctx, findAuthorSQL, int64(a.Kind), a.ID, a.Label).Scan(&ref); err != nil {
			return err
		}
		authors[a] = ref
	}
	stmt, err := tx.PrepareContext(ctx, insertSQL)
	if err != nil {
		return err
	}
	for i, m := range msgs {
		if _, err := stmt.ExecContext(ctx, id, head+1+int64(i), int64(m.Parent), authors[m.Author], nil, m.Content, m.At.UnixMicro(), nil, 0, false, 0); err != nil { // no audience, no key, no correction
			return err
		}
	}
	return tx.Commit()
}

// benchFreshStore returns an empty store in a temporary directory.
func benchFreshStore(b *testing.B) *Store {
	b.Helper()
	st, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}
