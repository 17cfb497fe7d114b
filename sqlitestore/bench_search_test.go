package sqlitestore

// Benchmarks of search and of its index's cost; BENCHMARKS.md ("Search (SQLite)") holds
// the figures, the ratios and the commands.

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/storage"
)

// benchSearchRows is the size of the search benchmarks' desk, and benchSmallRows of the
// small desk beside it.
const (
	benchSearchRows = 1_000_000
	benchSmallRows  = 1_000
	benchSmallDesk  = "small"
)

// benchSearchMessages returns benchMessages(n) with benchdesk.RareWord in 10 rows.
func benchSearchMessages(n int) []transcript.Message {
	msgs := benchMessages(n)
	benchdesk.Rare(msgs, 10)
	return msgs
}

// benchSearchStore returns the search benchmarks' store: the desk benchSmallDesk of
// benchSmallRows rows written first, then benchDeskName of benchSearchRows rows, both
// benchSearchMessages, so that every entry of the large desk is newer than the small
// one's. With alone, the small desk is the file's only desk. The large desk holds no more
// rows than benchdesk.Rows allows.
func benchSearchStore(tb testing.TB, alone bool) *Store {
	tb.Helper()
	rows := benchdesk.Rows(tb, benchSearchRows)
	if alone {
		return benchCachedStore(tb, "search-alone", fmt.Sprintf("search-%d", benchSmallRows), benchSmallRows, func(st *Store) {
			benchBuild(tb, st, benchDeskName, benchSearchMessages(benchSmallRows))
		})
	}
	return benchCachedStore(tb, "search", fmt.Sprintf("search-%d-%d", benchSmallRows, rows), rows, func(st *Store) {
		benchBuild(tb, st, benchSmallDesk, benchSearchMessages(benchSmallRows))
		benchBuild(tb, st, benchDeskName, benchSearchMessages(rows))
	})
}

// BenchmarkSearch compares, on the 1,000,000-row desk, a search (impl=Search) with reading
// the whole desk through its Log and matching every row with SearchPlan.Matches
// (impl=ReadAll), for benchdesk.RareWord (in 10 rows) and benchdesk.CommonWord (most
// rows; the first page, Limit 20), and with the channel projection of the desk
// (impl=Project, the default window). desk=small searches the 1,000-row desk written
// before the large one in the same file, and desk=small-alone the same desk alone in a
// file: what the large desk's matches cost a small desk's search.
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	for _, word := range []string{benchdesk.RareWord, benchdesk.CommonWord} {
		q := transcript.SearchQuery{Text: word, Viewer: benchdesk.Outsider, Limit: 20}
		for _, desk := range []string{"large", "small", "small-alone"} {
			b.Run(fmt.Sprintf("desk=%s/word=%s/impl=Search", desk, word), func(b *testing.B) {
				st, name := benchSearchStore(b, desk == "small-alone"), benchDeskName
				if desk == "small" {
					name = benchSmallDesk
				}
				s := st.Log(name).(transcript.Searcher)
				var res transcript.SearchResult
				defer benchCPU(b)()
				for b.Loop() {
					var err error
					if res, err = s.Search(ctx, q); err != nil || len(res.Messages) == 0 {
						b.Fatal(len(res.Messages), err)
					}
				}
				b.ReportMetric(float64(len(res.Messages)), "hits/op")
			})
		}
		b.Run(fmt.Sprintf("desk=large/word=%s/impl=ReadAll", word), func(b *testing.B) {
			log := benchSearchStore(b, false).Log(benchDeskName)
			plan, err := storage.PlanSearch(q)
			if err != nil {
				b.Fatal(err)
			}
			matches := 0
			defer benchCPU(b)()
			for b.Loop() {
				matches = 0
				for before := transcript.Sequence(0); ; {
					page, err := log.ReadBefore(ctx, before, transcript.PageSize)
					if err != nil {
						b.Fatal(err)
					}
					for i := range page.Messages {
						if plan.Matches(&page.Messages[i]) {
							matches++
						}
					}
					if before = page.Next; before == 0 {
						break
					}
				}
			}
			b.ReportMetric(float64(matches), "matches/op")
		})
	}
	b.Run("desk=large/impl=Project", func(b *testing.B) {
		log := benchSearchStore(b, false).Log(benchDeskName)
		defer benchCPU(b)()
		for b.Loop() {
			if _, err := transcript.Project(ctx, log, transcript.Query{Viewer: benchdesk.Outsider}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkAppendIndex appends one row at a time to two fresh stores, one with the search
// index and one without it (skipIndex): the index's cost on an append. Each iteration
// appends the same row to both, timing each, and reports the medians and their ratio,
// which the load of a shared machine, hitting both alike, disturbs far less than separate
// runs. (BenchmarkAppend is the append with the index alone.)
func BenchmarkAppendIndex(b *testing.B) {
	ctx := context.Background()
	msgs := benchMessages(1000)
	b.Run("paired", func(b *testing.B) {
		on, off := benchFreshStore(b), benchFreshStore(b)
		off.skipIndex = true
		var onTimes, offTimes []time.Duration
		timed := func(st *Store, into *[]time.Duration, m transcript.Message) {
			start := time.Now()
			if _, err := st.Append(ctx, benchDeskName, m); err != nil {
				b.Fatal(err)
			}
			*into = append(*into, time.Since(start))
		}
		i := 0
		for b.Loop() {
			m := msgs[i%len(msgs)]
			m.Parent = 0
			if i%2 == 0 {
				timed(on, &onTimes, m)
				timed(off, &offTimes, m)
			} else {
				timed(off, &offTimes, m)
				timed(on, &onTimes, m)
			}
			i++
		}
		b.ReportMetric(median(onTimes), "on-ns")
		b.ReportMetric(median(offTimes), "off-ns")
		b.ReportMetric(median(onTimes)/median(offTimes), "on/off")
	})
}

// benchImportBatch is the import command's batch: the rows of one AppendBatch.
const benchImportBatch = 8192

// BenchmarkImportIndex imports the 1,000,000-row desk into a new file with AppendBatch,
// benchImportBatch rows a batch, with the search index (index=on) and without it
// (index=off), and reports the file's size and, with the index, the index's share of it.
func BenchmarkImportIndex(b *testing.B) {
	ctx := context.Background()
	msgs := benchSearchMessages(benchdesk.Rows(b, benchSearchRows))
	for _, index := range []string{"on", "off"} {
		b.Run("index="+index, func(b *testing.B) {
			var st *Store
			defer benchCPU(b)()
			for b.Loop() {
				b.StopTimer()
				if st != nil {
					st.Close()
				}
				var err error
				if st, err = Open(ctx, filepath.Join(b.TempDir(), "import.db")); err != nil {
					b.Fatal(err)
				}
				st.skipIndex = index == "off"
				b.StartTimer()
				for i := 0; i < len(msgs); i += benchImportBatch {
					if err := st.AppendBatch(ctx, benchDeskName, msgs[i:min(i+benchImportBatch, len(msgs))]); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.StopTimer()
			sizes, err := st.tableSizes(ctx)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(sizes.file)/(1<<20), "file-MiB")
			b.ReportMetric(float64(sizes.index)/(1<<20), "index-MiB")
			st.Close()
		})
	}
}

// BenchmarkImportIndexPaired imports the 1,000,000-row desk as BenchmarkImportIndex does,
// into two new files an iteration, one with the search index and one without, alternating
// which goes first, and reports the medians of each one's wall and CPU time and their
// ratios: paired, the load of a shared machine hits both alike.
func BenchmarkImportIndexPaired(b *testing.B) {
	ctx := context.Background()
	msgs := benchSearchMessages(benchdesk.Rows(b, benchSearchRows))
	var wall, cpu [2][]time.Duration // [0] with the index, [1] without
	imp := func(skip int) {
		st, err := Open(ctx, filepath.Join(b.TempDir(), "import.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		st.skipIndex = skip == 1
		start, startCPU := time.Now(), processCPU()
		for i := 0; i < len(msgs); i += benchImportBatch {
			if err := st.AppendBatch(ctx, benchDeskName, msgs[i:min(i+benchImportBatch, len(msgs))]); err != nil {
				b.Fatal(err)
			}
		}
		wall[skip] = append(wall[skip], time.Since(start))
		cpu[skip] = append(cpu[skip], time.Duration(processCPU()-startCPU))
	}
	i := 0
	for b.Loop() {
		imp(i % 2)
		imp(1 - i%2)
		i++
	}
	b.ReportMetric(median(wall[0])/median(wall[1]), "wall-on/off")
	b.ReportMetric(median(cpu[0])/median(cpu[1]), "cpu-on/off")
	b.ReportMetric(median(cpu[0]), "cpu-on-ns")
	b.ReportMetric(median(cpu[1]), "cpu-off-ns")
}

// storeSizes are the bytes of a store's file, and of its search index's tables.
type storeSizes struct{ file, index int64 }

// tableSizes measures st's file with the dbstat table (modernc's SQLite has it): the pages
// of every table and index, and those of message_terms' shadow tables.
func (s *Store) tableSizes(ctx context.Context) (storeSizes, error) {
	var z storeSizes
	err := s.writer.QueryRowContext(ctx, `
SELECT sum(pgsize), ifnull(sum(pgsize) FILTER (WHERE name LIKE 'message\_terms%' ESCAPE '\'), 0) FROM dbstat`).Scan(&z.file, &z.index)
	return z, err
}

// benchOldThread returns the oldest thread of msgs (the rows of a fresh desk, row i at Seq
// i+1) whose root and replies hold word in at least 3 rows, and how many rows hold it.
func benchOldThread(msgs []transcript.Message, word string) (transcript.Sequence, int) {
	plan, err := storage.PlanSearch(transcript.SearchQuery{Text: word, Viewer: benchdesk.Outsider})
	if err != nil {
		panic(err)
	}
	counts := make(map[transcript.Sequence]int)
	for i := range msgs {
		root := msgs[i].Parent
		if root == 0 {
			root = transcript.Sequence(i + 1)
		}
		if plan.Matches(&msgs[i]) {
			counts[root]++
		}
	}
	for i := range msgs {
		if root := transcript.Sequence(i + 1); msgs[i].Parent == 0 && counts[root] >= 3 {
			return root, counts[root]
		}
	}
	return 0, 0
}

// BenchmarkSearchThread compares, on the 1,000,000-row desk, a search for
// benchdesk.CommonWord within the desk's oldest thread that holds it in 3 rows or more
// (scope=thread) with the same search on the whole desk (scope=desk), paired: each
// iteration runs both, alternating which goes first, and reports the medians and their
// ratio. Every match of the desk is newer than the thread's, so a search that walked the
// desk's matches for the thread's would read them all.
func BenchmarkSearchThread(b *testing.B) {
	ctx := context.Background()
	st := benchSearchStore(b, false)
	thread, hits := benchOldThread(benchSearchMessages(benchdesk.Rows(b, benchSearchRows)), benchdesk.CommonWord)
	if thread == 0 {
		b.Fatal("no thread holds the word")
	}
	s := st.Log(benchDeskName).(transcript.Searcher)
	whole := transcript.SearchQuery{Text: benchdesk.CommonWord, Viewer: benchdesk.Outsider, Limit: 20}
	within := whole
	within.Thread = thread
	var deskTimes, threadTimes []time.Duration
	timed := func(q transcript.SearchQuery, into *[]time.Duration, want int) {
		start := time.Now()
		res, err := s.Search(ctx, q)
		*into = append(*into, time.Since(start))
		if err != nil || len(res.Messages) != want {
			b.Fatalf("thread %d: %d hits, want %d (%v)", q.Thread, len(res.Messages), want, err)
		}
	}
	i := 0
	defer benchCPU(b)()
	for b.Loop() {
		if i%2 == 0 {
			timed(whole, &deskTimes, 20)
			timed(within, &threadTimes, min(hits, 20))
		} else {
			timed(within, &threadTimes, min(hits, 20))
			timed(whole, &deskTimes, 20)
		}
		i++
	}
	b.ReportMetric(median(deskTimes), "desk-ns")
	b.ReportMetric(median(threadTimes), "thread-ns")
	b.ReportMetric(median(threadTimes)/median(deskTimes), "thread/desk")
	b.ReportMetric(float64(thread), "thread-seq")
}

// BenchmarkAppendTriggers appends the same batch of benchImportBatch rows to two fresh
// stores an iteration, one with the triggers on messages (whatever the schema names them:
// two that refuse older processes' writes, on insert and on update, and two that delete
// digests, of a corrected row and of a deleted one) and one with them dropped, alternating
// which goes first, and reports the medians and their ratio: what the triggers cost a batch.
func BenchmarkAppendTriggers(b *testing.B) {
	ctx := context.Background()
	msgs := benchMessages(benchImportBatch)
	on, off := benchFreshStore(b), benchFreshStore(b)
	rows, err := off.writer.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'messages'`)
	if err != nil {
		b.Fatal(err)
	}
	var triggers []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			b.Fatal(err)
		}
		triggers = append(triggers, name)
	}
	if err := rows.Err(); err != nil {
		b.Fatal(err)
	}
	rows.Close()
	if len(triggers) != 4 {
		b.Fatalf("triggers on messages: %q, want four (on insert, on update, and deleting the digests of a corrected row and of a deleted one)", triggers)
	}
	for _, trigger := range triggers {
		if _, err := off.writer.ExecContext(ctx, "DROP TRIGGER "+trigger); err != nil {
			b.Fatal(err)
		}
	}
	var onTimes, offTimes []time.Duration
	timed := func(st *Store, into *[]time.Duration) {
		start := time.Now()
		if err := st.AppendBatch(ctx, benchDeskName, msgs); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, time.Since(start))
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			timed(on, &onTimes)
			timed(off, &offTimes)
		} else {
			timed(off, &offTimes)
			timed(on, &onTimes)
		}
		i++
	}
	b.ReportMetric(median(onTimes), "on-ns")
	b.ReportMetric(median(offTimes), "off-ns")
	b.ReportMetric(median(onTimes)/median(offTimes), "on/off")
}
