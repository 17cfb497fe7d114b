package storage

import (
	"fmt"

	"github.com/sharedesk/transcript"
)

// SearchPlan is a search PlanSearch accepted: the query with its Limit within bounds, and
// the terms every match holds.
type SearchPlan struct {
	transcript.SearchQuery
	// Terms are the query's words (see PlanSearch): 1 to transcript.MaxSearchTerms terms, none above
	// transcript.MaxTermBytes.
	Terms []string
}

// PlanSearch checks q and returns its plan, or a *transcript.InvalidError that says what is wrong
// without quoting the text. Every Searcher of this module starts here.
//
// The query's words are Terms(q.Text) without each word of one Han, Hiragana, Katakana
// or Hangul character that a word of two of them holds, which it implies: "移行" holds the
// one word "移行", found in "…移行は…" and not in "行移", and "時" the word "時". The
// query holds 1 to transcript.MaxSearchTerms of these words, each at most transcript.MaxTermBytes long.
func PlanSearch(q transcript.SearchQuery) (SearchPlan, error) {
	terms := queryTerms(q.Text)
	switch {
	case len(terms) == 0:
		return SearchPlan{}, &transcript.InvalidError{Kind: transcript.ErrBadSearch, Reason: "the text holds no word"}
	case len(terms) > transcript.MaxSearchTerms:
		return SearchPlan{}, &transcript.InvalidError{Kind: transcript.ErrBadSearch, Reason: fmt.Sprintf("the text holds %d words, above the limit of %d", len(terms), transcript.MaxSearchTerms)}
	}
	for _, t := range terms {
		if len(t) > transcript.MaxTermBytes {
			// Not numbered: the words are counted once each, lower-cased, which is not the
			// count of the words as typed.
			return SearchPlan{}, &transcript.InvalidError{Kind: transcript.ErrBadSearch, Reason: fmt.Sprintf("a word is %d bytes long, above the limit of %d", len(t), transcript.MaxTermBytes)}
		}
	}
	switch {
	case q.Limit <= 0:
		q.Limit = transcript.SearchLimit
	case q.Limit > transcript.MaxSearchLimit:
		q.Limit = transcript.MaxSearchLimit
	}
	return SearchPlan{SearchQuery: q, Terms: terms}, nil
}

// Matches reports whether m is a match of p, the Before bound aside: m is neither a
// correction nor blank nor redacted, p's viewer may read it, it lies in p's thread when p
// has one, and every one of p.Terms is among Terms(m.Content).
func (p *SearchPlan) Matches(m *transcript.Message) bool {
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
func (p *SearchPlan) InScope(m *transcript.Message) bool {
	return p.Thread == 0 || m.Seq == p.Thread || m.Parent == p.Thread
}

// Result returns p's answer from hits, matches of p below its Before bound, newest first,
// at least the first p.Limit+1 of them when that many exist: the first p.Limit, ending
// early once their content reaches transcript.PageBytes (the first is always kept), and Next set
// when a match older than the last one returned was among hits. Its Messages are empty,
// never nil, when nothing matches. A store reads p.Limit+1
// matches and calls Result, so that every Searcher pages alike.
func (p *SearchPlan) Result(hits []transcript.Message) transcript.SearchResult {
	n, bytes := 0, 0
	for n < len(hits) && n < p.Limit && (n == 0 || bytes+len(hits[n].Content) <= transcript.PageBytes) {
		bytes += len(hits[n].Content)
		n++
	}
	r := transcript.SearchResult{Messages: []transcript.Message{}}
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
func Searchable(m *transcript.Message) bool { return !m.Blank() && !m.Redacted }

// IndexTerms returns the terms a store indexes for m: none for a row no search finds (see
// Searchable), else Terms(m.Content) without the terms longer than transcript.MaxTermBytes, which no
// search holds: every word of one and of two characters of a run of Han, Hiragana,
// Katakana or Hangul among them. Both stores of this module index exactly these, so that
// they find what memlog's brute force finds, for every script.
func IndexTerms(m *transcript.Message) []string {
	if !Searchable(m) {
		return nil
	}
	terms := Terms(m.Content)
	kept := terms[:0]
	for _, t := range terms {
		if len(t) <= transcript.MaxTermBytes {
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
