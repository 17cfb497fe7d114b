package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/storage"
)

// SearchWorkCounter is implemented by a store's log that counts the work its store's
// searches do: index entries read and rows read (fetched or examined), cumulative over
// every search of the store since it opened.
type SearchWorkCounter interface {
	SearchWork() (entries, rows int64)
}

// SearchSeeds are the seeds of the desks SearchRule builds.
var SearchSeeds = []uint64{1, 2, 3}

// SearchDraw is how many of SearchSeeds SearchRule draws: all of them, or the first alone
// under the race detector (proptest.Desks), which slows a store that searches in this
// process many times over while its checks ask one search at a time, and gives a store
// that searches in another process (PostgreSQL) no more to check than the first desk does,
// the checks being the same and run one at a time; make test draws them all without the
// race detector too.
var SearchDraw = proptest.Desks(len(SearchSeeds), 1)

// searchStride is how far apart the texts a search check asks lie: every text when
// SearchDraw draws every seed, else every fifth (the race detector's share, spread across
// the texts so that every kind of text and every pairing of limit and bound is still met).
func searchStride() int {
	if SearchDraw < len(SearchSeeds) {
		return 5
	}
	return 1
}

// searchCmp compares answers: times as instants, an empty page as no page.
var searchCmp = cmp.Options{cmpopts.EquateEmpty(), cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })}

// searchDiff is cmp.Diff of two answers under searchCmp: "" when they are the same. Answers
// that are deeply equal are, and most are, so it asks reflect.DeepEqual first.
func searchDiff(want, got transcript.SearchResult) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, searchCmp)
}

// SearchRule checks searches on st, a new store: for each of the first SearchDraw of
// SearchSeeds it appends a NewSearchCase desk of 120 rows to desk "search-SEED" and the same
// desk without its asides to "search-SEED-blind", and checks SearchCheck for every text
// (every fifth when SearchDraw is short of the seeds) in the whole desk and in a third of
// the case's threads, with limits and bounds varied, and
// with bounds and threads past every Seq a store can hold. Then it checks thread searches
// on a desk whose threads' replies are mostly asides (NewThreadSearchCase, desks
// "search-thread" and "search-thread-blind"), and pages through searches of a thread of
// many matches on desk "search-thread-paging" (checkThreadPaging).
// The store's logs must implement transcript.Searcher; when they also implement
// SearchWorkCounter, an outsider's search must do the same work on both desks of each pair.
func SearchRule(t *testing.T, st Store) {
	t.Helper()
	for _, seed := range SearchSeeds[:SearchDraw] {
		c := NewSearchCase(seed, 120)
		desk, blind := fmt.Sprintf("search-%d", seed), fmt.Sprintf("search-%d-blind", seed)
		appendAll(t, st, desk, c.Inputs)
		appendAll(t, st, blind, c.Blinded)
		s := searcherOf(t, st.Log(desk))
		sb := searcherOf(t, st.Log(blind))
		for i := 0; i < len(c.Texts); i += searchStride() {
			text := c.Texts[i]
			for j, thread := range c.Threads {
				// Every text in the whole desk, and in a third of the threads, in turn.
				if j != 0 && (i+j)%3 != 0 {
					continue
				}
				q := transcript.SearchQuery{Text: text, Thread: thread}
				// Bounds and limits vary with the text, so that every pairing is met
				// across the texts without asking each of them every time.
				q.Limit = []int{0, 1, 3, 200}[i%4]
				if i%3 == 1 {
					q.Before = transcript.Sequence(len(c.Rows) / 2)
				}
				searchCheck(t, c, s, sb, q)
			}
		}
		// Bounds and threads past every Seq a store can hold, which a database's signed
		// integers must not wrap.
		for _, text := range c.Texts[:6] {
			for _, huge := range []transcript.Sequence{1 << 63, math.MaxUint64} {
				searchCheck(t, c, s, sb, transcript.SearchQuery{Text: text, Before: huge})
				searchCheck(t, c, s, sb, transcript.SearchQuery{Text: text, Thread: huge})
			}
		}
	}
	threadSearchRule(t, st)
	checkThreadPaging(t, st)
}

// checkThreadPaging pages through searches of a thread whose root and 7 replies hold a
// word, between rows of the desk that hold it too: with limits of 1 and 3, from the head
// and below a reply, Next leads through the thread's matches below the bound, each once,
// newest first.
func checkThreadPaging(t *testing.T, st Store) {
	t.Helper()
	const desk = "search-thread-paging"
	ana := searchAna
	msgs := []transcript.Message{{Author: ana, Content: "rota"}, {Author: ana, Content: "deploy the rota"}}
	thread := transcript.Sequence(2)
	var want []transcript.Sequence // newest first
	for i := range 7 {
		msgs = append(msgs, transcript.Message{Author: ana, Content: "deploy elsewhere"})
		msgs = append(msgs, transcript.Message{Author: ana, Content: fmt.Sprintf("deploy reply %d", i), Parent: thread})
	}
	appendAll(t, st, desk, msgs)
	for i := len(msgs); i >= 1; i-- {
		if m := msgs[i-1]; i == int(thread) || m.Parent == thread {
			want = append(want, transcript.Sequence(i))
		}
	}
	s := searcherOf(t, st.Log(desk))
	for _, limit := range []int{1, 3} {
		for _, before := range []transcript.Sequence{0, want[2]} {
			q := transcript.SearchQuery{Text: "deploy", Thread: thread, Limit: limit, Before: before, Viewer: ana}
			var got []transcript.Sequence
			for page := 0; page <= len(msgs); page++ {
				res, err := s.Search(t.Context(), q)
				if err != nil {
					t.Fatalf("search of thread %d, limit %d, before %d: %v", thread, limit, q.Before, err)
				}
				for _, m := range res.Messages {
					got = append(got, m.Seq)
				}
				if res.Next == 0 {
					break
				}
				q.Before = res.Next
			}
			w := want
			if before != 0 {
				w = want[3:]
			}
			if !slices.Equal(got, w) {
				t.Fatalf("paging a search of thread %d, limit %d, from before %d found rows %v, want %v", thread, limit, before, got, w)
			}
		}
	}
}

// searcherOf returns log as a transcript.Searcher, failing t when it is not one.
func searcherOf(t testing.TB, log transcript.Log) transcript.Searcher {
	t.Helper()
	s, ok := log.(transcript.Searcher)
	if !ok {
		t.Fatalf("storetest: the store's log %T does not implement transcript.Searcher", log)
	}
	return s
}

// appendAll appends msgs to desk of st, one at a time, failing t on the first refusal.
func appendAll(t testing.TB, st transcript.Appender, desk string, msgs []transcript.Message) {
	t.Helper()
	for i, m := range msgs {
		if _, err := st.Append(context.Background(), desk, m); err != nil {
			t.Fatalf("storetest: appending input %d to %s: %v", i, desk, err)
		}
	}
}

// SearchCheck asks q of s, c's desk, as every viewer of SearchViewers, and of sb, the same
// desk without its asides, as SearchOutsider and the zero Author. Every answer must be
// SearchModel's, word for word; for a query of limit 3, of the whole desk or of a thread,
// following Next pages through every match the model finds below q.Before, each once,
// newest first; no answer's JSON holds a word of c.ForbiddenWords; and the outsiders'
// answers on s and sb are the same: messages, Next and errors, and, when s and sb
// implement SearchWorkCounter, the work of the search (entries and rows read, the
// counters' growth over the one search).
func SearchCheck(t testing.TB, c SearchCase, s, sb transcript.Searcher, q transcript.SearchQuery) {
	t.Helper()
	searchCheck(t, c, s, sb, q)
}

func searchCheck(t reporter, c SearchCase, s, sb transcript.Searcher, q transcript.SearchQuery) {
	t.Helper()
	ctx := context.Background()
	for _, v := range SearchViewers {
		q.Viewer = v
		what := fmt.Sprintf("search %+q as %v in thread %d before %d, limit %d", q.Text, v, q.Thread, q.Before, q.Limit)
		outsider := v.Validate() != nil || v.Same(SearchOutsider)
		got, work, err := searchWork(ctx, s, q)
		want, wantErr := c.Model(q)
		if wantErr != nil {
			if !errors.Is(err, transcript.ErrBadSearch) {
				t.Fatalf("%s: got error %v, want one matching transcript.ErrBadSearch", what, err)
			}
		} else if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		checkNoForbiddenWords(t, what, got, err, c.ForbiddenWords(v))
		if diff := searchDiff(want, got); diff != "" {
			t.Fatalf("%s: the answer differs from the model's (-model +store):\n%s", what, diff)
		}
		if err == nil && q.Limit == 3 {
			checkPaging(t, what, s, c, q)
		}
		if outsider {
			blind, blindWork, blindErr := searchWork(ctx, sb, q)
			if fmt.Sprint(blindErr) != fmt.Sprint(err) {
				t.Fatalf("%s: the error differs without the asides: %v, and %v with them", what, blindErr, err)
			}
			if diff := searchDiff(blind, got); diff != "" {
				t.Fatalf("%s: an outsider's answer depends on the asides (-without +with):\n%s", what, diff)
			}
			// A database's first reads of new rows may do work its later reads do not (it
			// marks dead index entries, a standby catches up): the same search asked again
			// of both desks must then agree. Reading an aside's entries repeats every time.
			for again := 0; work != blindWork && again < 3; again++ {
				_, work, _ = searchWork(ctx, s, q)
				_, blindWork, _ = searchWork(ctx, sb, q)
			}
			if work != blindWork {
				t.Fatalf("%s: an outsider's search work depends on the asides: %d entries and %d rows read without them, %d and %d with them",
					what, blindWork[0], blindWork[1], work[0], work[1])
			}
		}
	}
}

// searchWork asks q of s and returns its answer and the work it did: the entries and rows
// read, as s's SearchWorkCounter counts them, or zeros when s counts none.
func searchWork(ctx context.Context, s transcript.Searcher, q transcript.SearchQuery) (transcript.SearchResult, [2]int64, error) {
	c, counts := s.(SearchWorkCounter)
	var entries, rows int64
	if counts {
		entries, rows = c.SearchWork()
	}
	res, err := s.Search(ctx, q)
	if !counts {
		return res, [2]int64{}, err
	}
	e, r := c.SearchWork()
	return res, [2]int64{e - entries, r - rows}, err
}

// checkSearchWork fails t when st's logs do not count their search work.
func checkSearchWork(t *testing.T, st Store) {
	t.Helper()
	if _, ok := st.Log("search-work").(SearchWorkCounter); !ok {
		t.Fatalf("storetest: the store's log %T does not implement storetest.SearchWorkCounter", st.Log("search-work"))
	}
}

// checkPaging follows Next from q's answer to the end and checks the pages together are
// every match the model finds below q.Before.
func checkPaging(t reporter, what string, s transcript.Searcher, c SearchCase, q transcript.SearchQuery) {
	t.Helper()
	all := q
	all.Limit = len(c.Rows) + 1
	want := searchAll(c, all)
	var got []transcript.Sequence
	for page := 0; ; page++ {
		if page > len(c.Rows)+1 {
			t.Fatalf("%s: paging did not end after %d pages", what, page)
		}
		res, err := s.Search(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: page %d: %v", what, page, err)
		}
		for _, m := range res.Messages {
			got = append(got, m.Seq)
		}
		if res.Next == 0 {
			break
		}
		q.Before = res.Next
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%s: paging through Next found other matches (-model +pages):\n%s", what, diff)
	}
}

// searchAll returns the Seqs of every match of q over c's rows, newest first, by the model.
func searchAll(c SearchCase, q transcript.SearchQuery) []transcript.Sequence {
	var seqs []transcript.Sequence
	for {
		res, err := c.Model(q)
		if err != nil {
			return nil
		}
		for _, m := range res.Messages {
			seqs = append(seqs, m.Seq)
		}
		if res.Next == 0 {
			return seqs
		}
		q.Before = res.Next
	}
}

// checkNoForbiddenWords fails t when the JSON of an answer, or its error, holds a word of
// forbidden.
func checkNoForbiddenWords(t reporter, what string, res transcript.SearchResult, err error, forbidden map[string]bool) {
	t.Helper()
	body, jerr := json.Marshal(res)
	if jerr != nil {
		t.Fatalf("%s: marshalling the answer: %v", what, jerr)
	}
	for _, w := range storage.Terms(string(body) + " " + fmt.Sprint(err)) {
		if forbidden[w] {
			t.Fatalf("%s: the answer holds %q, a word of a row the viewer may not read or of erased content:\n%s", what, w, body)
		}
	}
}
