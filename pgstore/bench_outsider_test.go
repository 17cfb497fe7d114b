package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/pgstore"
)

// The outsider benchmark's desk: outsiderRows rows, every other one an aside from
// agent:alice to agent:bob holding outsiderWord (and, in 10 of them, outsiderRare); beside
// it a desk of outsiderOtherRows public rows holding otherDeskWord. noWord is in no row.
const (
	outsiderRows      = 40_000
	outsiderOtherRows = 6_000
	outsiderWord      = "acmecorp"
	outsiderRare      = "zyxwarbler"
	otherDeskWord     = "globex"
	noWord            = "qqnowhereqq"
)

var (
	benchAlice = transcript.Agent("alice", "Alice")
	benchBob   = transcript.Agent("bob", "Bob")
	benchEve   = transcript.Agent("eve", "Eve")
)

// outsiderThreadDesk is the outsider benchmark's desk of one thread: a desk row and
// 20,000 replies to it, every other one an aside from agent:alice to agent:bob holding
// outsiderWord.
const outsiderThreadDesk = "outsider-thread-20000"

// outsiderDesks returns the outsider benchmark's desk and the other desk, loading them and
// outsiderThreadDesk with COPY on first use.
func outsiderDesks(b *testing.B) (desk, other string) {
	b.Helper()
	desk, other = fmt.Sprintf("outsider-%d", outsiderRows), fmt.Sprintf("outsider-other-%d", outsiderOtherRows)
	loadBenchDesk(b, desk, outsiderRows, func() []transcript.Message {
		msgs := streamDesk(outsiderRows, 0)
		for i := range msgs {
			msgs[i].Parent = 0
			if i%2 == 1 {
				msgs[i].Author, msgs[i].Audience = benchAlice, []transcript.Author{benchBob}
				msgs[i].Content = outsiderWord + " " + msgs[i].Content
				if i%(outsiderRows/10) == 1 {
					msgs[i].Content += " " + outsiderRare
				}
			}
		}
		return msgs
	})
	loadBenchDesk(b, outsiderThreadDesk, outsiderRows/2+1, func() []transcript.Message {
		msgs := streamDesk(outsiderRows/2+1, 0)
		for i := range msgs {
			msgs[i].Parent = 0
			if i == 0 {
				continue
			}
			msgs[i].Parent = 1
			if i%2 == 0 {
				msgs[i].Author, msgs[i].Audience = benchAlice, []transcript.Author{benchBob}
				msgs[i].Content = outsiderWord + " " + msgs[i].Content
			}
		}
		return msgs
	})
	loadBenchDesk(b, other, outsiderOtherRows, func() []transcript.Message {
		msgs := streamDesk(outsiderOtherRows, 0)
		for i := range msgs {
			msgs[i].Content = otherDeskWord + " " + msgs[i].Content
		}
		return msgs
	})
	return desk, other
}

// alternatedTimes is pairedTimes, with the two calls in turn first: first then second in
// one iteration, second then first in the next, so that neither gains from its place.
func alternatedTimes(b *testing.B, names [2]string, first, second func()) {
	b.Helper()
	var (
		times [2]time.Duration
		n     int
	)
	run := func(i int, f func()) {
		start := time.Now()
		f()
		times[i] += time.Since(start)
	}
	for b.Loop() {
		if n%2 == 0 {
			run(0, first)
			run(1, second)
		} else {
			run(1, second)
			run(0, first)
		}
		n++
	}
	for i, name := range names {
		b.ReportMetric(float64(times[i].Nanoseconds())/float64(n), name+"-ns/op")
	}
	b.ReportMetric(float64(times[0])/float64(times[1]), names[0]+"/"+names[1])
}

// BenchmarkSearchOutsider: on a desk of 40,000 rows, half of them asides from agent:alice
// to agent:bob holding "acmecorp", beside a desk of 6,000 rows holding "globex":
//
//   - aside-word: agent:eve's search for acmecorp and for a word in no row, paired
//     (alternatedTimes: word/none is the ratio), with each search's work (SearchWork);
//   - other-desk: eve's search for globex, found only on the other desk, and for a word in
//     no row, paired;
//   - thread: eve's search for acmecorp and for a word in no row within a thread of 20,000
//     replies, half of them those asides (outsiderThreadDesk), paired;
//   - bob: bob's search for a word in 10 asides (rare) and the first page of acmecorp
//     (common), each against reading the desk (fullSearch, timed once: x-fullread), and
//     bob paging through all 20,000 asides, 20 a page (x-fullread a page);
//   - append: an append with the index as it is and as schema version 8 kept it, paired
//     (benchOutsiderAppend);
//   - reindex: the migration that rebuilds the index of a 200,000-row desk
//     (benchOutsiderReindex).
//
// Run it with a benchtime in seconds (-benchtime 3s): an iteration of reindex takes
// seconds, one of the searches a millisecond.
func BenchmarkSearchOutsider(b *testing.B) {
	st, _ := benchStore(b)
	desk, _ := outsiderDesks(b)
	ctx := context.Background()
	s := st.Log(desk).(transcript.Searcher)
	work := st.Log(desk).(interface{ SearchWork() (int64, int64) })
	for _, c := range []struct {
		name, text string
		s          transcript.Searcher
		thread     transcript.Sequence
	}{
		{"aside-word", outsiderWord, s, 0},
		{"other-desk", otherDeskWord, s, 0},
		{"thread", outsiderWord, st.Log(outsiderThreadDesk).(transcript.Searcher), 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			word := transcript.SearchQuery{Text: c.text, Viewer: benchEve, Thread: c.thread}
			none := transcript.SearchQuery{Text: noWord, Viewer: benchEve, Thread: c.thread}
			searchIn := func(b *testing.B, q transcript.SearchQuery) {
				if _, err := c.s.Search(ctx, q); err != nil {
					b.Fatal(err)
				}
			}
			var w [2][2]int64
			for i, q := range []transcript.SearchQuery{word, none} {
				e0, r0 := work.SearchWork()
				searchIn(b, q)
				e1, r1 := work.SearchWork()
				w[i] = [2]int64{e1 - e0, r1 - r0}
			}
			b.ResetTimer()
			alternatedTimes(b, [2]string{"word", "none"}, func() { searchIn(b, word) }, func() { searchIn(b, none) })
			b.ReportMetric(float64(w[0][0]), "word-entries")
			b.ReportMetric(float64(w[0][1]), "word-rows")
			b.ReportMetric(float64(w[1][0]), "none-entries")
			b.ReportMetric(float64(w[1][1]), "none-rows")
		})
	}

	rare := transcript.SearchQuery{Text: outsiderRare, Viewer: benchBob}
	start := time.Now()
	want, err := fullSearch(ctx, st.Log(desk), rare)
	if err != nil {
		b.Fatal(err)
	}
	full := time.Since(start)
	if len(want.Messages) != 10 {
		b.Fatalf("the full read found %d rows of %q, want 10", len(want.Messages), outsiderRare)
	}
	b.Run("bob/word=rare", func(b *testing.B) {
		benchSearchAgainst(b, s, rare, want, full)
	})
	b.Run("bob/word=common", func(b *testing.B) {
		q := transcript.SearchQuery{Text: outsiderWord, Viewer: benchBob, Limit: 20}
		want, err := fullSearch(ctx, st.Log(desk), q)
		if err != nil {
			b.Fatal(err)
		}
		benchSearchAgainst(b, s, q, want, full)
	})
	b.Run("bob/pages", func(b *testing.B) {
		pages := 0
		for b.Loop() {
			q := transcript.SearchQuery{Text: outsiderWord, Viewer: benchBob, Limit: 20}
			found := 0
			for {
				res, err := s.Search(ctx, q)
				if err != nil {
					b.Fatal(err)
				}
				pages++
				found += len(res.Messages)
				if res.Next == 0 {
					break
				}
				q.Before = res.Next
			}
			if found != outsiderRows/2 {
				b.Fatalf("paging found %d asides, want %d", found, outsiderRows/2)
			}
		}
		perPage := float64(b.Elapsed().Nanoseconds()) / float64(pages)
		b.ReportMetric(perPage, "ns/page")
		b.ReportMetric(float64(full.Nanoseconds())/perPage, "x-fullread")
	})
	b.Run("append", benchOutsiderAppend)
	b.Run("reindex", benchOutsiderReindex)
}

// benchOutsiderAppend: one append of a root, through the same raw round trip
// (pgstore.RawAppend), with its terms as this package indexes them (keyed by desk and
// reader set) and as schema version 8 indexed them, alternately (alternatedTimes: new/old), on
// two databases of their own; every other message is an aside from agent:alice to
// agent:bob.
func benchOutsiderAppend(b *testing.B) {
	ctx := context.Background()
	newPool := connect(b, newDatabase(b))
	if err := pgstore.MigrateTo(ctx, newPool, pgstore.LatestVersion); err != nil {
		b.Fatal(err)
	}
	oldPool := connect(b, newDatabase(b))
	if err := pgstore.MigrateTo(ctx, oldPool, 8); err != nil {
		b.Fatal(err)
	}
	desk := fmt.Sprintf("append-%d", rand.Uint64())
	i := 0
	next := func() transcript.Message {
		m := transcript.Message{Author: benchAlice, Content: benchdesk.Contents[i%len(benchdesk.Contents)], At: time.Now().UTC()}
		if i%2 == 1 {
			m.Audience = []transcript.Author{benchBob}
			m.Content = outsiderWord + " " + m.Content
		}
		return m
	}
	alternatedTimes(b, [2]string{"new", "old"}, func() {
		i++
		if err := pgstore.RawAppend(ctx, newPool, desk, next(), false); err != nil {
			b.Fatal(err)
		}
	}, func() {
		if err := pgstore.RawAppend(ctx, oldPool, desk, next(), true); err != nil {
			b.Fatal(err)
		}
	})
}

// benchOutsiderReindex: migrating a database at schema version 8 holding a desk of
// reindexRows rows (benchdesk.Stream, every other row an aside), loaded with COPY, to the
// index keyed by reader set: Open's migration, which rebuilds the index in Go, timed
// alone (reindex-s), with rows/s.
func benchOutsiderReindex(b *testing.B) {
	reindexRows := benchdesk.Rows(b, 200_000)
	ctx := context.Background()
	msgs := streamDesk(reindexRows, 0)
	for i := range msgs {
		if i%2 == 1 {
			msgs[i].Parent = 0
			msgs[i].Author, msgs[i].Audience = benchAlice, []transcript.Author{benchBob}
		}
	}
	for i := range msgs {
		if p := msgs[i].Parent; p != 0 && msgs[p-1].IsAside() {
			msgs[i].Parent = 0
		}
	}
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		dsn := newDatabase(b)
		pool := connect(b, dsn)
		if err := pgstore.MigrateTo(ctx, pool, 8); err != nil {
			b.Fatal(err)
		}
		copyMessages(b, pool, "eng", msgs)
		b.StartTimer()
		start := time.Now()
		st, err := pgstore.Open(ctx, dsn)
		total += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		st.Close()
	}
	b.ReportMetric(total.Seconds()/float64(b.N), "reindex-s")
	b.ReportMetric(float64(reindexRows)*float64(b.N)/total.Seconds(), "rows/s")
}
