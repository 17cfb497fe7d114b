package storetest

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/storage"
)

// brokenSearcher is memlog's search with one thing wrong.
type brokenSearcher struct {
	log  *memlog.Log
	bend func(q *transcript.SearchQuery)                                               // changes the query before it is asked
	next func(s *brokenSearcher, q transcript.SearchQuery, r *transcript.SearchResult) // changes the answer
}

func (s *brokenSearcher) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	asked := q
	if s.bend != nil {
		s.bend(&asked)
	}
	r, err := s.log.Search(ctx, asked)
	if err == nil && s.next != nil {
		s.next(s, q, &r)
	}
	return r, err
}

// ownWordsSearcher searches rows as a database's own tokenizer would: words split at every
// character that is not a letter or digit (marks included), lower-cased, not normalized.
type ownWordsSearcher struct{ rows []transcript.Message }

func (s ownWordsSearcher) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	p, err := storage.PlanSearch(q)
	if err != nil {
		return transcript.SearchResult{}, err
	}
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	var hits []transcript.Message
	for i := len(s.rows) - 1; i >= 0 && len(hits) <= p.Limit; i-- {
		m := s.rows[i]
		if (p.Before == 0 || m.Seq < p.Before) && storage.Searchable(&m) && m.ReadableBy(p.Viewer) && p.InScope(&m) && holdsAll(words(m.Content), words(q.Text)) {
			hits = append(hits, m)
		}
	}
	return p.Result(hits), nil
}

// runSearchChecks runs the checks of SearchRule on the case of seed 1, then on a thread
// case, over the searchers newSearcher returns for each desk and for the desk without
// asides, asking every stride-th text (see runCaseChecks), and returns the failures.
func runSearchChecks(t *testing.T, stride int, newSearcher func(rows []transcript.Message) transcript.Searcher) (failures []string) {
	r := &recorder{ctx: t.Context()}
	defer func() {
		if x := recover(); x != nil && x != errFatal {
			panic(x)
		}
		failures = r.failures
	}()
	for _, c := range []SearchCase{NewSearchCase(1, 120), NewThreadSearchCase(40)} {
		runCaseChecks(t, r, c, stride, newSearcher)
	}
	return nil
}

// runCaseChecks runs the checks of SearchRule on c, for every stride-th text and every
// thread and limit. A searcher the checks must fail is asked every text (a stride of 1):
// the checks stop at its first failure. One they must pass is asked searchStride's share,
// as SearchRule asks a store: every text, or every fifth under the race detector, where a
// check on one goroutine has little to race; make test-draws asks every text without it.
func runCaseChecks(t *testing.T, r reporter, c SearchCase, stride int, newSearcher func(rows []transcript.Message) transcript.Searcher) {
	blind := memlog.New()
	for _, m := range c.Blinded {
		if _, err := blind.Append(t.Context(), m); err != nil {
			t.Fatal(err)
		}
	}
	s, sb := newSearcher(slices.Clone(c.Rows)), newSearcher(blind.Messages())
	for i := 0; i < len(c.Texts); i += stride {
		text := c.Texts[i]
		for _, thread := range c.Threads {
			for _, limit := range []int{0, 1, 2, 3, 200} {
				searchCheck(r, c, s, sb, transcript.SearchQuery{Text: text, Thread: thread, Limit: limit})
			}
		}
	}
}

// TestSearchChecksCatchBrokenSearchers: the search checks pass memlog's search, and report
// each way of breaking the search rules.
func TestSearchChecksCatchBrokenSearchers(t *testing.T) {
	over := func(rows []transcript.Message, mod func(*memlog.Log) *brokenSearcher) transcript.Searcher {
		log, err := memlog.From(rows)
		if err != nil {
			t.Fatal(err)
		}
		return mod(log)
	}
	plain := func(l *memlog.Log) *brokenSearcher { return &brokenSearcher{log: l} }
	if failures := runSearchChecks(t, searchStride(), func(rows []transcript.Message) transcript.Searcher { return over(rows, plain) }); len(failures) != 0 {
		t.Fatalf("the checks fail memlog's search:\n%s", strings.Join(failures, "\n"))
	}
	if failures := runSearchChecks(t, 1, func(rows []transcript.Message) transcript.Searcher { return ownWordsSearcher{rows} }); len(failures) == 0 {
		t.Error("the checks pass a searcher that splits words at marks and does not normalize")
	}
	for _, broken := range []struct {
		name string
		rows func(rows []transcript.Message) []transcript.Message // the rows the searcher holds
		mod  func(*memlog.Log) *brokenSearcher
		want string
	}{
		{"asides read as the operator", nil, func(l *memlog.Log) *brokenSearcher {
			return &brokenSearcher{log: l, bend: func(q *transcript.SearchQuery) { q.Viewer = transcript.Operator() }}
		}, "a word of a row the viewer may not read"},
		{"Next set by an unreadable match", nil, func(l *memlog.Log) *brokenSearcher {
			return &brokenSearcher{log: l, next: func(s *brokenSearcher, q transcript.SearchQuery, r *transcript.SearchResult) {
				q.Viewer = transcript.Operator()
				if all, _ := s.log.Search(context.Background(), q); all.Next != 0 && r.Next == 0 && len(r.Messages) > 0 {
					r.Next = r.Messages[len(r.Messages)-1].Seq
				}
			}}
		}, "differs from the model"},
		{"Next set on every full page", nil, func(l *memlog.Log) *brokenSearcher {
			return &brokenSearcher{log: l, next: func(s *brokenSearcher, q transcript.SearchQuery, r *transcript.SearchResult) {
				if p, _ := storage.PlanSearch(q); len(r.Messages) == p.Limit {
					r.Next = r.Messages[len(r.Messages)-1].Seq
				}
			}}
		}, "differs from the model"},
		{"the bound ignored", nil, func(l *memlog.Log) *brokenSearcher {
			return &brokenSearcher{log: l, bend: func(q *transcript.SearchQuery) { q.Before = 0 }}
		}, "paging"},
		{"words edited away still found", func(rows []transcript.Message) []transcript.Message {
			c := NewSearchCase(1, 120)
			for i := range rows {
				if rows[i].Revised != 0 && !rows[i].Redacted && len(rows) == len(c.Inputs) {
					rows[i].Content += " " + c.Inputs[i].Content
				}
			}
			return rows
		}, plain, "differs from the model"},
		{"erased words kept", func(rows []transcript.Message) []transcript.Message {
			c := NewSearchCase(1, 120)
			for i := range rows {
				if rows[i].Redacted && len(rows) == len(c.Inputs) && rows[i].Corrects == 0 {
					rows[i].Content, rows[i].Redacted = c.Inputs[i].Content, false
				}
			}
			return rows
		}, plain, "a word of a row the viewer may not read or of erased content"},
	} {
		t.Run(broken.name, func(t *testing.T) {
			failures := runSearchChecks(t, 1, func(rows []transcript.Message) transcript.Searcher {
				if broken.rows != nil {
					rows = broken.rows(rows)
				}
				return over(rows, broken.mod)
			})
			for _, f := range failures {
				if strings.Contains(f, broken.want) {
					t.Logf("%d failures, among them:\n%.600s", len(failures), f)
					return
				}
			}
			t.Errorf("no failure says %q; the failures:\n%s", broken.want, strings.Join(failures, "\n"))
		})
	}
}

// indexSearcher is memlog's search that counts its work as an index of words would: per
// search, one entry for each searchable row of the desk that holds every word (in any
// scope, below any bound), and one row for each answer. Keyed by word and reader set, it
// reads only the entries of rows the viewer may read; keyed by word only (byWord), every
// row's, asides included, as the index of finding 1 did. With walk, a thread's search
// also reads the thread's root and every reply, asides included, as a walk of a
// (desk, parent, seq) index does.
type indexSearcher struct {
	log           *memlog.Log
	rows          []transcript.Message
	terms         [][]string // storage.Terms of each of rows' content
	byWord, walk  bool
	entries, read int64
}

func (s *indexSearcher) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	if p, err := storage.PlanSearch(q); err == nil {
		for i := range s.rows {
			m := &s.rows[i]
			if storage.Searchable(m) && holdsAll(s.terms[i], p.Terms) && (s.byWord || m.ReadableBy(p.Viewer)) {
				s.entries++
			}
			if s.walk && q.Thread != 0 && p.InScope(m) {
				s.read++
			}
		}
	}
	r, err := s.log.Search(ctx, q)
	s.read += int64(len(r.Messages))
	return r, err
}

func (s *indexSearcher) SearchWork() (entries, rows int64) { return s.entries, s.read }

// TestSearchWorkCatchesAsideEntries: the search checks pass a searcher whose work is that
// of an index keyed by reader set, and report one that reads the entries of asides its
// viewer may not read, as an outsider's search work that depends on the asides.
func TestSearchWorkCatchesAsideEntries(t *testing.T) {
	if failures := runSearchChecks(t, searchStride(), indexSearchers(t, indexSearcher{})); len(failures) != 0 {
		t.Fatalf("the checks fail a searcher keyed by reader set:\n%s", strings.Join(failures, "\n"))
	}
	checkWorkFailure(t, runSearchChecks(t, 1, indexSearchers(t, indexSearcher{byWord: true})))
}

// TestSearchWorkCatchesThreadWalk: the search checks report a searcher keyed by reader set
// whose thread searches walk every reply of the thread, asides included, as an outsider's
// search work that depends on the asides, on the thread case alone.
func TestSearchWorkCatchesThreadWalk(t *testing.T) {
	r := &recorder{ctx: t.Context()}
	func() {
		defer func() {
			if x := recover(); x != nil && x != errFatal {
				panic(x)
			}
		}()
		runCaseChecks(t, r, NewThreadSearchCase(40), 1, indexSearchers(t, indexSearcher{walk: true}))
	}()
	checkWorkFailure(t, r.failures)
}

// indexSearchers returns a function that makes an indexSearcher like proto over rows.
func indexSearchers(t *testing.T, proto indexSearcher) func(rows []transcript.Message) transcript.Searcher {
	return func(rows []transcript.Message) transcript.Searcher {
		log, err := memlog.From(rows)
		if err != nil {
			t.Fatal(err)
		}
		s := proto
		s.log, s.rows, s.terms = log, rows, make([][]string, len(rows))
		for i, m := range rows {
			s.terms[i] = storage.Terms(m.Content)
		}
		return &s
	}
}

// checkWorkFailure fails t unless a failure of failures tells of an outsider's search work.
func checkWorkFailure(t *testing.T, failures []string) {
	t.Helper()
	for _, f := range failures {
		if strings.Contains(f, "search work depends on the asides") {
			t.Logf("%d failures, among them:\n%.600s", len(failures), f)
			return
		}
	}
	t.Errorf("no failure tells of the outsider's search work; the failures:\n%s", strings.Join(failures, "\n"))
}
