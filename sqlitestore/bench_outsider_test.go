package sqlitestore

// Benchmarks of what an outsider's search costs beside a reader's, and of rebuilding the
// search index.

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

// The outsider benchmark's desk: benchOutsiderRows rows, every other one an aside from
// alice to bob holding benchAsideWord, the others desk rows; benchAsideRare is in 10 of
// the asides, benchNoWord in no row.
const (
	benchOutsiderRows = 40_000
	benchAsideWord    = "acmecorp"
	benchAsideRare    = "globex"
	benchNoWord       = "initech"
)

var (
	benchAlice = transcript.Agent("alice", "")
	benchBob   = transcript.Agent("bob", "")
	benchEve   = transcript.Agent("eve", "")
)

// benchThreadDesk is the outsider benchmark's desk of one thread: a desk row, then
// benchOutsiderRows/2 replies to it, every other one an aside from alice to bob holding
// benchAsideWord, the others desk rows.
const benchThreadDesk = "thread"

// benchOutsiderStore returns a new store holding the outsider benchmark's desks.
func benchOutsiderStore(b *testing.B) *Store {
	b.Helper()
	msgs := make([]transcript.Message, benchOutsiderRows)
	for i := range msgs {
		if i%2 == 0 {
			msgs[i] = transcript.Message{Author: transcript.Person("ana", ""), Content: fmt.Sprintf("standup notes %d: the build is green, deploy at noon", i)}
			continue
		}
		content := fmt.Sprintf("%s renewal %d: pricing as discussed", benchAsideWord, i)
		if i%(benchOutsiderRows/10) == 1 {
			content += " " + benchAsideRare
		}
		msgs[i] = transcript.Message{Author: benchAlice, Audience: []transcript.Author{benchBob}, Content: content}
	}
	st := benchFreshStore(b)
	benchBuild(b, st, benchDeskName, msgs)
	thread := []transcript.Message{{Author: transcript.Person("ana", ""), Content: "release thread: deploy at noon"}}
	for i := range benchOutsiderRows / 2 {
		m := msgs[i]
		m.Parent = 1
		thread = append(thread, m)
	}
	benchBuild(b, st, benchThreadDesk, thread)
	return st
}

// BenchmarkSearchOutsider, on a desk of 40,000 rows, half of them asides from agent:alice
// to agent:bob holding "acmecorp": eve, who reads none of them, searches for "acmecorp"
// and for a word in no row, paired (each iteration both, alternating which goes first),
// reporting the medians and their ratio (viewer=eve); bob, who reads them all, searches
// for "acmecorp" (common: the first page of 20) and "globex" (rare: in 10 asides), and
// pages through all 20,000 asides 100 at a time (viewer=bob/word=...), beside reading
// the desk as bob and matching every row (viewer=bob/impl=ReadAll), the search's
// alternative. Within a thread of 20,000 replies, half of them such asides, eve searches
// the thread for "acmecorp" and for a word in no row, paired (thread=eve/paired), and bob
// for "acmecorp" (thread=bob).
func BenchmarkSearchOutsider(b *testing.B) {
	ctx := context.Background()
	st := benchOutsiderStore(b)
	s := st.Log(benchDeskName).(transcript.Searcher)
	search := func(q transcript.SearchQuery, want int) transcript.SearchResult {
		res, err := s.Search(ctx, q)
		if err != nil || len(res.Messages) != want {
			b.Fatalf("search %q as %v: %d hits, want %d (%v)", q.Text, q.Viewer, len(res.Messages), want, err)
		}
		return res
	}
	// paired times eve's searches of s for the aside word and for a word in no row, within
	// thread (0: the whole desk), alternating which goes first.
	paired := func(b *testing.B, s transcript.Searcher, thread transcript.Sequence) {
		aside := transcript.SearchQuery{Text: benchAsideWord, Viewer: benchEve, Limit: 20, Thread: thread}
		none := transcript.SearchQuery{Text: benchNoWord, Viewer: benchEve, Limit: 20, Thread: thread}
		var asideTimes, noneTimes []time.Duration
		timed := func(q transcript.SearchQuery, into *[]time.Duration) {
			start := time.Now()
			res, err := s.Search(ctx, q)
			*into = append(*into, time.Since(start))
			if err != nil || len(res.Messages) != 0 {
				b.Fatalf("search %q as %v: %d hits, want 0 (%v)", q.Text, q.Viewer, len(res.Messages), err)
			}
		}
		i := 0
		for b.Loop() {
			if i%2 == 0 {
				timed(aside, &asideTimes)
				timed(none, &noneTimes)
			} else {
				timed(none, &noneTimes)
				timed(aside, &asideTimes)
			}
			i++
		}
		b.ReportMetric(median(asideTimes), "aside-word-ns")
		b.ReportMetric(median(noneTimes), "no-word-ns")
		b.ReportMetric(median(asideTimes)/median(noneTimes), "aside/none")
	}
	b.Run("viewer=eve/paired", func(b *testing.B) { paired(b, s, 0) })
	threadLog := st.Log(benchThreadDesk).(transcript.Searcher)
	b.Run("thread=eve/paired", func(b *testing.B) { paired(b, threadLog, 1) })
	b.Run("thread=bob/word="+benchAsideWord, func(b *testing.B) {
		q := transcript.SearchQuery{Text: benchAsideWord, Viewer: benchBob, Limit: 20, Thread: 1}
		defer benchCPU(b)()
		for b.Loop() {
			if res, err := threadLog.Search(ctx, q); err != nil || len(res.Messages) != 20 {
				b.Fatalf("search %q as bob in the thread: %d hits, want 20 (%v)", q.Text, len(res.Messages), err)
			}
		}
	})
	for _, word := range []struct {
		text string
		hits int
	}{{benchAsideWord, 20}, {benchAsideRare, 10}} {
		b.Run("viewer=bob/word="+word.text, func(b *testing.B) {
			q := transcript.SearchQuery{Text: word.text, Viewer: benchBob, Limit: 20}
			defer benchCPU(b)()
			for b.Loop() {
				search(q, word.hits)
			}
		})
	}
	b.Run("viewer=bob/word="+benchAsideWord+"/pages", func(b *testing.B) {
		pages := 0
		defer benchCPU(b)()
		for b.Loop() {
			q := transcript.SearchQuery{Text: benchAsideWord, Viewer: benchBob, Limit: 100}
			found := 0
			for pages = 1; ; pages++ {
				res := search(q, min(100, benchOutsiderRows/2-found))
				found += len(res.Messages)
				if q.Before = res.Next; q.Before == 0 {
					break
				}
			}
			if found != benchOutsiderRows/2 {
				b.Fatalf("%d asides found, want %d", found, benchOutsiderRows/2)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(pages), "ns/page")
	})
	b.Run("viewer=bob/impl=ReadAll", func(b *testing.B) {
		log := st.Log(benchDeskName)
		plan, err := storage.PlanSearch(transcript.SearchQuery{Text: benchAsideRare, Viewer: benchBob})
		if err != nil {
			b.Fatal(err)
		}
		defer benchCPU(b)()
		for b.Loop() {
			matches := 0
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
			if matches != 10 {
				b.Fatalf("%d matches, want 10", matches)
			}
		}
	})
}

// benchReindexRows is the size of the file BenchmarkReindex rebuilds the index of.
const benchReindexRows = 200_000

// BenchmarkReindex rebuilds the search index of a file of 200,000 rows (benchMessages,
// with benchdesk.Asides making a tenth of the threads asides) as the migration to the keyed
// index does, by the rebuild Open makes when the index's terms version is not the
// running program's: each iteration marks the version stale, then opens the file
// (timed) and closes it.
func BenchmarkReindex(b *testing.B) {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "reindex.db")
	st, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	rows := benchdesk.Rows(b, benchReindexRows)
	msgs := benchSearchMessages(rows)
	for i := range msgs {
		msgs[i].Seq = transcript.Sequence(i + 1)
	}
	benchdesk.Asides(msgs, 10)
	for i := range msgs {
		msgs[i].Seq = 0
	}
	benchBuild(b, st, benchDeskName, msgs)
	st.Close()
	for b.Loop() {
		b.StopTimer()
		db := openRaw(b, path)
		if _, err := db.ExecContext(ctx, `UPDATE message_terms_version SET version = 'stale'`); err != nil {
			b.Fatal(err)
		}
		db.Close()
		b.StartTimer()
		st, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
}
