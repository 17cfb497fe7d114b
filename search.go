package transcript

import (
	"context"
	"errors"
	"fmt"
)

// Bounds of a search.
const (
	SearchLimit    = 20  // matches a search returns when SearchQuery.Limit <= 0
	MaxSearchLimit = 100 // the most matches one search returns
	MaxSearchTerms = 16  // the most terms a search's text may hold
	MaxTermBytes   = 64  // the longest term, in bytes as Terms returns it, a search may hold
)

// ErrBadSearch is matched by the refusal of a search whose text holds no term, more than
// MaxSearchTerms terms, or a term longer than MaxTermBytes.
var ErrBadSearch = errors.New("bad search")

// SearchQuery asks one viewer's question of a desk: its newest rows that hold every word
// of Text.
type SearchQuery struct {
	// Text is the words to find, all of them, in any order: the query's words PlanSearch
	// finds in it.
	Text string
	// Viewer is whose search it is, as in Query: only the rows Viewer may read match
	// (see Message.ReadableBy), and the zero Author reads only desk rows.
	Viewer Author
	// Thread is 0 to search the whole desk, every thread included; otherwise the row Thread
	// and the rows that reply to it directly (Parent == Thread), never a reply to a reply.
	Thread Sequence
	// Before is an exclusive bound, for the next page (a SearchResult's Next); 0 searches
	// from the newest row.
	Before Sequence
	// Limit is the most matches to return: SearchLimit when <= 0, MaxSearchLimit when above.
	Limit int
}

// SearchResult is one page of a search's matches.
type SearchResult struct {
	// Messages are the newest matches below the query's Before, newest first, as the desk
	// stores them now: an edited row with its new content.
	Messages []Message
	// Next is the Before of the next page: the Seq of the oldest match returned when an
	// older match the viewer may read exists, else 0.
	Next Sequence
}

// Searcher is what a Log that can search implements: memlog's and both stores' logs. A
// caller finds it by type assertion on a Log.
//
// Search returns the newest matches of q (see SearchPlan.Matches), at most its limit of
// them, and fewer when their content reaches PageBytes; no part of the answer — messages,
// Next, an error — depends on a row q.Viewer may not read. It fails with ErrBadSearch for
// a query PlanSearch refuses, and honours ctx.
type Searcher interface {
	Search(ctx context.Context, q SearchQuery) (SearchResult, error)
}

// SearchPlan is a search PlanSearch accepted: the query with its Limit within bounds, and
// the terms every match holds.
type SearchPlan struct {
	SearchQuery
	// Terms are the query's words (see PlanSearch): 1 to MaxSearchTerms terms, none above
	// MaxTermBytes.
	Terms []string
}

// SearchError is the refusal of a search's text, which matches ErrBadSearch. Reason says
// what is wrong without quoting the text ("the text holds no word").
type SearchError struct {
	Reason string
}

func (e *SearchError) Error() string { return ErrBadSearch.Error() + ": " + e.Reason }

// Is reports that every SearchError matches ErrBadSearch.
func (e *SearchError) Is(target error) bool { return target == ErrBadSearch }

// PlanSearch checks q and returns its plan, or a *SearchError that says what is wrong
// without quoting the text. Every Searcher of this module starts here.
//
// The query's words are Terms(q.Text) without each word of one Han, Hiragana, Katakana
// or Hangul character that a word of two of them holds, which it implies: "移行" holds the
// one word "移行", found in "…移行は…" and not in "行移", and "時" the word "時". The
// query holds 1 to MaxSearchTerms of these words, each at most MaxTermBytes long.
func PlanSearch(q SearchQuery) (SearchPlan, error) {
	terms := queryTerms(q.Text)
	switch {
	case len(terms) == 0:
		return SearchPlan{}, &SearchError{Reason: "the text holds no word"}
	case len(terms) > MaxSearchTerms:
		return SearchPlan{}, &SearchError{Reason: fmt.Sprintf("the text holds %d words, above the limit of %d", len(terms), MaxSearchTerms)}
	}
	for i, t := range terms {
		if len(t) > MaxTermBytes {
			return SearchPlan{}, &SearchError{Reason: fmt.Sprintf("word %d is %d bytes long, above the limit of %d", i+1, len(t), MaxTermBytes)}
		}
	}
	switch {
	case q.Limit <= 0:
		q.Limit = SearchLimit
	case q.Limit > MaxSearchLimit:
		q.Limit = MaxSearchLimit
	}
	return SearchPlan{SearchQuery: q, Terms: terms}, nil
}

// Matches reports whether m is a match of p, the Before bound aside: m is neither a
// correction nor blank nor redacted, p's viewer may read it, it lies in p's thread when p
// has one, and every one of p.Terms is among Terms(m.Content).
func (p *SearchPlan) Matches(m *Message) bool {
	if !Searchable(m) || !m.ReadableBy(p.Viewer) || !p.InScope(m) {
		return false
	}
	terms := Terms(m.Content)
	for _, t := range p.Terms {
		if !contains(terms, t) {
			return false
		}
	}
	return true
}

// InScope reports whether m lies in p's scope: any row when p.Thread is 0, else the row
// p.Thread and its direct replies.
func (p *SearchPlan) InScope(m *Message) bool {
	return p.Thread == 0 || m.Seq == p.Thread || m.Parent == p.Thread
}

// Result returns p's answer from hits, matches of p below its Before bound, newest first,
// at least the first p.Limit+1 of them when that many exist: the first p.Limit, ending
// early once their content reaches PageBytes (the first is always kept), and Next set
// when a match older than the last one returned was among hits. Its Messages are empty,
// never nil, when nothing matches. A store reads p.Limit+1
// matches and calls Result, so that every Searcher pages alike.
func (p *SearchPlan) Result(hits []Message) SearchResult {
	n, bytes := 0, 0
	for n < len(hits) && n < p.Limit && (n == 0 || bytes+len(hits[n].Content) <= PageBytes) {
		bytes += len(hits[n].Content)
		n++
	}
	r := SearchResult{Messages: []Message{}}
	if n > 0 {
		r.Messages = hits[:n:n]
	}
	if n < len(hits) {
		r.Next = hits[n-1].Seq
	}
	return r
}

// Searchable reports whether any search may find m: m is neither a correction, nor blank,
// nor redacted.
func Searchable(m *Message) bool { return !m.blank() && !m.Redacted }

// IndexTerms returns the terms a store indexes for m: none for a row no search finds (see
// Searchable), else Terms(m.Content) without the terms longer than MaxTermBytes, which no
// search holds: every word of one and of two characters of a run of Han, Hiragana,
// Katakana or Hangul among them. Both stores of this module index exactly these, so that
// they find what memlog's brute force finds, for every script.
func IndexTerms(m *Message) []string {
	if !Searchable(m) {
		return nil
	}
	terms := Terms(m.Content)
	kept := terms[:0]
	for _, t := range terms {
		if len(t) <= MaxTermBytes {
			kept = append(kept, t)
		}
	}
	return kept
}

func contains(terms []string, t string) bool {
	for _, u := range terms {
		if u == t {
			return true
		}
	}
	return false
}
