package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/storage"
)

// searchDeskRows is the size of the search benchmarks' desk.
const searchDeskRows = 1_000_000

// benchSearchDesk returns the benchmark database's desk of searchDeskRows rows (no more than
// benchdesk.Rows allows) of benchdesk.Stream, benchdesk.RareWord in 10 of them
// (benchdesk.Rare), loaded with COPY, terms included, on first use.
func benchSearchDesk(b *testing.B) string {
	b.Helper()
	rows := benchdesk.Rows(b, searchDeskRows)
	desk := fmt.Sprintf("search-%d", rows)
	loadBenchDesk(b, desk, rows, func() []transcript.Message {
		msgs := streamDesk(rows, 0)
		if n := benchdesk.Rare(msgs, 10); n != 10 {
			b.Fatalf("benchdesk.Rare marked %d rows, want 10", n)
		}
		return msgs
	})
	return desk
}

// fullSearch is the search a store without an index makes: it reads the whole desk through
// its Log, newest first, and matches every row with plan.Matches, keeping the first
// Limit+1 matches for plan.Result.
func fullSearch(ctx context.Context, log transcript.Log, q transcript.SearchQuery) (transcript.SearchResult, error) {
	plan, err := storage.PlanSearch(q)
	if err != nil {
		return transcript.SearchResult{}, err
	}
	var hits []transcript.Message
	for before := transcript.Sequence(0); ; {
		page, err := log.ReadBefore(ctx, before, transcript.PageSize)
		if err != nil {
			return transcript.SearchResult{}, err
		}
		for i := range page.Messages {
			if len(hits) <= plan.Limit && plan.Matches(&page.Messages[i]) {
				hits = append(hits, page.Messages[i])
			}
		}
		if page.Next == 0 {
			return plan.Result(hits), nil
		}
		before = page.Next
	}
}

// fullRead is the time of one fullSearch of the search desk for the rare word, measured
// once per run: the baseline of BenchmarkSearch's ratios.
var fullRead struct {
	once sync.Once
	d    time.Duration
	res  transcript.SearchResult
	err  error
}

// BenchmarkSearch: on the 1,000,000-row desk, a search for benchdesk.RareWord (in 10 rows)
// and the first page (Limit 20) of benchdesk.CommonWord, as the zero Author, through the
// store's Search, each checked first against fullSearch, the whole desk read through the
// Log and every row matched; x-fullread is how many times faster than that full read
// (timed once per run, in the same run) each search is. The FullRead sub-benchmark times
// the full read itself, and reports the sizes on disk of the messages table and of the
// terms table and its GIN index.
func BenchmarkSearch(b *testing.B) {
	st, pool := benchStore(b)
	desk := benchSearchDesk(b)
	ctx := context.Background()
	rare := transcript.SearchQuery{Text: benchdesk.RareWord}
	fullRead.once.Do(func() {
		start := time.Now()
		fullRead.res, fullRead.err = fullSearch(ctx, st.Log(desk), rare)
		fullRead.d = time.Since(start)
	})
	if fullRead.err != nil {
		b.Fatal(fullRead.err)
	}
	b.Run("impl=FullRead", func(b *testing.B) {
		for b.Loop() {
			if _, err := fullSearch(ctx, st.Log(desk), rare); err != nil {
				b.Fatal(err)
			}
		}
		for _, rel := range []struct{ name, sql string }{
			{"messages-MB", `pg_total_relation_size('transcript_messages')`},
			{"terms-table-MB", `pg_relation_size('transcript_terms') + pg_relation_size('transcript_terms_pkey') + pg_relation_size('transcript_terms_thread')`},
			{"terms-gin-MB", `pg_relation_size('transcript_terms_keys')`},
		} {
			var size int64
			if err := pool.QueryRow(ctx, `SELECT `+rel.sql).Scan(&size); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(size)/(1<<20), rel.name)
		}
	})
	for _, c := range []struct {
		name string
		q    transcript.SearchQuery
	}{
		{"word=rare", rare},
		{"word=common", transcript.SearchQuery{Text: benchdesk.CommonWord, Limit: 20}},
	} {
		b.Run("impl=Search/"+c.name, func(b *testing.B) {
			want := fullRead.res
			if c.name != "word=rare" {
				var err error
				if want, err = fullSearch(ctx, st.Log(desk), c.q); err != nil {
					b.Fatal(err)
				}
			}
			benchSearchAgainst(b, st.Log(desk).(transcript.Searcher), c.q, want, fullRead.d)
		})
	}
}

// benchSearchAgainst checks s's answer to q against want, the full read's, then times s's
// searches for q and reports x-fullread, full (the full read's time) over a search's, and
// the rows of the answer.
func benchSearchAgainst(b *testing.B, s transcript.Searcher, q transcript.SearchQuery, want transcript.SearchResult, full time.Duration) {
	ctx := context.Background()
	got, err := s.Search(ctx, q)
	if err != nil {
		b.Fatal(err)
	}
	if len(got.Messages) != len(want.Messages) || got.Next != want.Next || (len(want.Messages) > 0 && got.Messages[0].Seq != want.Messages[0].Seq) {
		b.Fatalf("Search: %d rows, next %d; the full read: %d rows, next %d", len(got.Messages), got.Next, len(want.Messages), want.Next)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
	}
	perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(full.Nanoseconds())/perOp, "x-fullread")
	b.ReportMetric(float64(len(got.Messages)), "rows")
}

// historyWord is in every row of the history desk (BenchmarkSearchHistory) but its newest
// 10,000, and in no row of another desk.
const historyWord = "yesteryear"

// BenchmarkSearchHistory: on a desk of 200,000 rows of benchdesk.Stream, historyWord in
// every row but the newest 10,000 (a twentieth: with fewer rows from benchdesk.Rows, the
// same share), the first page (Limit 20) of a search for it, as the zero Author, against the
// full read of the desk (fullSearch, timed once in the same run): a word common in the
// desk's history that its newest 1,024 rows do not hold, which the search finds in the
// desk's older windows.
func BenchmarkSearchHistory(b *testing.B) {
	n := benchdesk.Rows(b, 200_000)
	newest := n / 20
	st, _ := benchStore(b)
	desk := fmt.Sprintf("search-history-%d", n)
	loadBenchDesk(b, desk, n, func() []transcript.Message {
		msgs := streamDesk(n, 0)
		for i := range msgs[:n-newest] {
			msgs[i].Content += " " + historyWord
		}
		return msgs
	})
	ctx := context.Background()
	q := transcript.SearchQuery{Text: historyWord, Limit: 20}
	start := time.Now()
	want, err := fullSearch(ctx, st.Log(desk), q)
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	if len(want.Messages) != 20 || want.Messages[0].Seq != transcript.Sequence(n-newest) {
		b.Fatalf("the full read found %d rows; want 20, from row %d", len(want.Messages), n-newest)
	}
	b.Run("impl=Search/word=history", func(b *testing.B) {
		benchSearchAgainst(b, st.Log(desk).(transcript.Searcher), q, want, full)
	})
}

// BenchmarkSearchProjectPaired runs, alternately, the first
// page of a search for benchdesk.CommonWord (Limit 20) and the channel projection
// (transcript.Project, the newest 30) of the same 1,000,000-row desk (pairedTimes).
func BenchmarkSearchProjectPaired(b *testing.B) {
	st, _ := benchStore(b)
	desk := benchSearchDesk(b)
	ctx := context.Background()
	s := st.Log(desk).(transcript.Searcher)
	q := transcript.SearchQuery{Text: benchdesk.CommonWord, Limit: 20}
	pairedTimes(b, [2]string{"search", "project"}, func() {
		if _, err := s.Search(ctx, q); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if _, err := transcript.Project(ctx, st.Log(desk), transcript.Query{Conversation: transcript.Conversation{Desk: desk}}); err != nil {
			b.Fatal(err)
		}
	})
}

// pairedTimes runs first and second alternately, one call of each per iteration of b, and
// reports each one's time per call (NAME-ns/op, by names) and their ratio (first/second):
// on a shared machine both see the same stretches of load, so the ratio holds still.
func pairedTimes(b *testing.B, names [2]string, first, second func()) {
	b.Helper()
	var times [2]time.Duration
	for b.Loop() {
		start := time.Now()
		first()
		mid := time.Now()
		second()
		times[0] += mid.Sub(start)
		times[1] += time.Since(mid)
	}
	for i, name := range names {
		b.ReportMetric(float64(times[i].Nanoseconds())/float64(b.N), name+"-ns/op")
	}
	b.ReportMetric(float64(times[0])/float64(times[1]), names[0]+"/"+names[1])
}

// BenchmarkSearchIndexAppend: one Append of a message whose content is one of
// benchdesk.Contents, with its terms (the search index's cost) and without them
// (pgstore.SetNoTerms: the append as it was before search), paired (pairedTimes), on two
// desks of their own.
func BenchmarkSearchIndexAppend(b *testing.B) {
	st, _ := benchStore(b)
	ctx := context.Background()
	prefix := fmt.Sprintf("append-%d-", rand.Uint64())
	i := 0
	pairedTimes(b, [2]string{"with", "without"}, func() {
		i++
		m := transcript.Message{Author: alice, Content: benchdesk.Contents[i%len(benchdesk.Contents)]}
		if _, err := st.Append(ctx, prefix+"with", m); err != nil {
			b.Fatal(err)
		}
	}, func() {
		m := transcript.Message{Author: alice, Content: benchdesk.Contents[i%len(benchdesk.Contents)]}
		pgstore.SetNoTerms(st, true)
		defer pgstore.SetNoTerms(st, false)
		if _, err := st.Append(ctx, prefix+"without", m); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSearchIndexImport: importing the 1,000,000 rows of the search desk with
// AppendBatch, benchBatch rows at a time, into a new desk with their terms and into another
// without them (pgstore.SetNoTerms), batch by batch alternately, so that both imports see
// the same stretches of load, the same checkpoints and a database of the same size; it
// reports each import's time and their ratio. Run it with -benchtime=1x: an iteration
// imports 2,000,000 rows.
func BenchmarkSearchIndexImport(b *testing.B) {
	st, _ := benchStore(b)
	ctx := context.Background()
	msgs := streamDesk(benchdesk.Rows(b, searchDeskRows), 0)
	benchdesk.Rare(msgs, 10)
	var batches [][]transcript.Message // as an import hands them to AppendBatch
	for from := 0; from < len(msgs); from += benchBatch {
		batch := make([]transcript.Message, 0, benchBatch)
		for _, m := range msgs[from:min(from+benchBatch, len(msgs))] {
			switch p := int(m.Parent) - 1; {
			case m.Parent == 0:
			case p >= from:
				m.Parent = transcript.BatchParent(p - from)
			default: // a row of an earlier batch, stored
			}
			m.Seq = 0
			batch = append(batch, m)
		}
		batches = append(batches, batch)
	}
	var times [2]time.Duration
	for b.Loop() {
		prefix := fmt.Sprintf("import-%d-", rand.Uint64()) // new desks: the stored parents are their rows
		for _, batch := range batches {
			for i, noTerms := range []bool{false, true} {
				pgstore.SetNoTerms(st, noTerms)
				start := time.Now()
				err := st.AppendBatch(ctx, prefix+fmt.Sprint(noTerms), batch)
				times[i] += time.Since(start)
				pgstore.SetNoTerms(st, false)
				if err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	b.ReportMetric(times[0].Seconds()/float64(b.N), "with-s/op")
	b.ReportMetric(times[1].Seconds()/float64(b.N), "without-s/op")
	b.ReportMetric(float64(times[0])/float64(times[1]), "with/without")
}
