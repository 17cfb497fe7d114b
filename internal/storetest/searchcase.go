package storetest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/storage"
)

// searchWords is the vocabulary of the search checks: each entry lists spellings Terms must
// read alike (composed and decomposed, upper and lower case), in several scripts, those
// written without spaces among them.
var searchWords = [][]string{
	{"café", "cafe\u0301", "CAFÉ", "Cafe\u0301"},
	{"straße", "STRAẞE", "Straße"},
	{"strasse", "STRASSE"},
	{"σοφία", "ΣΟΦΊΑ", "σοφι\u0301α"},
	{"οδος", "ΟΔΟΣ"},
	{"привет", "ПРИВЕТ", "Привет"},
	{"ёлка", "ЁЛКА", "е\u0308лка"},
	{"नमस्ते"},
	{"हिन्दी"},
	{"क़लम", "क\u093cलम"},
	{"한국", "\u1112\u1161\u11ab\u1100\u116e\u11a8"},
	{"ａｂｃ", "ＡＢＣ"},
	{"１２３"},
	{"東京"},
	{"移行は22時に実行します"},
	{"マイグレーション確認済み"},
	{"迁移数据库"},
	{"데이터베이스", "\u1103\u1166\u110b\u1175\u1110\u1165\u1107\u1166\u110b\u1175\u1109\u1173"},
	{"がぎ", "か\u3099き\u3099"},
	{"ｶﾞｽ"},
	{"人々"},
	{"مرحبا"},
	{"deploy", "Deploy", "DEPLOY"},
	{"migration", "Migration"},
	{"rota"},
	{"v1"},
	{"don"},
	{"t"},
}

// searchSeparators join words: white space, punctuation inside and between words, emoji.
var searchSeparators = []string{" ", "  ", ", ", "-", "'", "’", ".", "_", "🚀", "\u00a0", "…", "\n", "/"}

// The cast of the search checks: who writes, and who searches.
var (
	searchOperator = transcript.Operator()
	searchAna      = transcript.Person("ana", "Ana")
	searchRaj      = transcript.Person("raj", "Raj")
	searchTriage   = transcript.Agent("triage", "Triage")
	searchCoder    = transcript.Agent("coder", "Coder")
	searchWorkflow = transcript.System("workflow", "Workflow")
	searchStranger = transcript.Agent("stranger", "Stranger") // writes nothing, listed nowhere
	searchWriters  = []transcript.Author{searchOperator, searchAna, searchRaj, searchTriage, searchCoder, searchWorkflow}
)

// SearchViewers are the viewers every search check asks as: the zero Author, the operator,
// each writer, and an outsider who wrote nothing and is listed in no aside.
var SearchViewers = append([]transcript.Author{{}}, append(searchWriters[:len(searchWriters):len(searchWriters)], searchStranger)...)

// SearchOutsider is the viewer of SearchViewers who may read no aside.
var SearchOutsider = searchStranger

// SearchCase is a random desk for the search checks and the questions to ask of it.
type SearchCase struct {
	// Inputs are the messages to append, in order, to a new desk: every one is accepted,
	// and the i-th is stored as row i+1. They hold asides and their replies, private
	// replies, blank rows, replies to replies, edits and redactions.
	Inputs []transcript.Message
	// Blinded are Inputs with every aside, and every reply to or correction of one,
	// replaced by a blank desk row of the same author: the same desk without its asides,
	// row for row.
	Blinded []transcript.Message
	// Rows are the desk's rows after Inputs, as memlog stores them.
	Rows []transcript.Message
	// Texts are the searches to make: words of the vocabulary in other spellings, words
	// found only in asides, words edited away or erased, and searches ErrBadSearch refuses.
	Texts []string
	// Threads are the scopes to search: 0, roots, replies, a correction, a Seq past the head.
	Threads []transcript.Sequence

	forbidden map[string]map[string]bool // forbiddenWords of each of SearchViewers, by String
	rowTerms  [][]string                 // the terms of each of Rows
}

// asideMarker is the word only row seq's content holds, when it is an aside or edits one.
func asideMarker(seq int) string { return fmt.Sprintf("qz%dx", seq) }

// NewSearchCase returns the search case of seed with about n rows.
func NewSearchCase(seed uint64, n int) SearchCase {
	r := rand.New(rand.NewPCG(seed, seed^0x5eed))
	log := memlog.New()
	ctx := context.Background()
	var c SearchCase
	start := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	words := func(k int) string {
		var b strings.Builder
		for range k {
			if b.Len() > 0 || r.IntN(4) == 0 {
				b.WriteString(searchSeparators[r.IntN(len(searchSeparators))])
			}
			w := searchWords[r.IntN(len(searchWords))]
			b.WriteString(w[r.IntN(len(w))])
		}
		return b.String()
	}
	for len(c.Inputs) < n {
		seq := len(c.Inputs) + 1
		m := transcript.Message{Author: searchWriters[r.IntN(len(searchWriters))], At: start.Add(time.Duration(seq) * time.Second)}
		m.Content = words(1 + r.IntN(6))
		switch k := r.IntN(20); {
		case k < 2:
			m.Content = []string{"", " ", "\n\t"}[r.IntN(3)]
		case k < 6: // an aside, maybe a private reply
			m.Content += " " + asideMarker(seq)
			for _, a := range searchWriters {
				if !a.Same(m.Author) && a.Kind != transcript.KindOperator && r.IntN(3) == 0 {
					m.Audience = append(m.Audience, a)
				}
			}
			if len(m.Audience) == 0 {
				m.Audience = []transcript.Author{searchAna}
				if m.Author.Same(searchAna) {
					m.Audience[0] = searchTriage
				}
			}
			if seq > 1 && r.IntN(3) == 0 {
				m.Parent = transcript.Sequence(1 + r.IntN(seq-1))
			}
		case k < 12 && seq > 1: // a reply; to an aside it is one too, and holds a marker
			m.Parent = transcript.Sequence(1 + r.IntN(seq-1))
			if c.Rows[m.Parent-1].IsAside() {
				m.Content += " " + asideMarker(seq)
			}
		case k < 15 && seq > 1: // a correction
			target := c.Rows[r.IntN(seq-1)]
			m = transcript.Message{Author: target.Author, Corrects: target.Seq, At: m.At}
			switch {
			case r.IntN(3) == 0:
				m.Redacted = true
				if r.IntN(2) == 0 {
					m.Author = searchOperator
				}
			default:
				m.Content = words(1 + r.IntN(4))
				if target.IsAside() {
					m.Content += " " + asideMarker(seq)
				}
			}
		}
		stored, err := log.Append(ctx, m)
		if err != nil {
			continue // a reply or correction the rules refuse: draw again
		}
		c.Inputs = append(c.Inputs, m)
		c.Rows = log.Messages()
		blind := m
		if stored.IsAside() {
			blind = transcript.Message{Author: m.Author, Content: " ", At: m.At}
		}
		c.Blinded = append(c.Blinded, blind)
	}
	c.Texts = searchTexts(r, c)
	c.Threads = []transcript.Sequence{0, transcript.Sequence(len(c.Rows) + 5)}
	for range 4 {
		c.Threads = append(c.Threads, c.Rows[r.IntN(len(c.Rows))].Seq)
	}
	for _, m := range c.Rows {
		if m.IsCorrection() {
			c.Threads = append(c.Threads, m.Seq)
			break
		}
	}
	c.index()
	return c
}

// searchTexts returns the searches of c: each word of the vocabulary in a spelling drawn
// at random, a few pairs, words inside runs of Han, Hiragana, Katakana and Hangul, the
// markers of asides, the first words of every erased or edited row as it was written, and
// refused searches.
func searchTexts(r *rand.Rand, c SearchCase) []string {
	var texts []string
	for _, w := range searchWords {
		texts = append(texts, w[r.IntN(len(w))])
	}
	for range 4 {
		a, b := searchWords[r.IntN(len(searchWords))], searchWords[r.IntN(len(searchWords))]
		texts = append(texts, a[r.IntN(len(a))]+" "+strings.ToUpper(b[r.IntN(len(b))]))
	}
	for i, m := range c.Inputs {
		row := c.Rows[i]
		switch {
		case row.IsAside() && strings.Contains(m.Content, asideMarker(i+1)):
			texts = append(texts, asideMarker(i+1))
		case row.Revised != 0 || row.Redacted:
			texts = append(texts, m.Content)
		}
	}
	// Words inside runs of Han, Hiragana, Katakana and Hangul: a character, two adjacent
	// ones, a number beside one, and characters in an order no row holds.
	texts = append(texts, "移行", "22時", "実行", "マイグレーション", "時", "行移", "確認 移行", "済み移行", "数据", "이터", "터데", "ぎ")
	texts = append(texts, "", "!!! 🚀 …", strings.Repeat("a", transcript.MaxTermBytes+1),
		strings.Repeat("é", transcript.MaxTermBytes/2), strings.Repeat("w ", transcript.MaxSearchTerms)+"x")
	return texts
}

// SearchModel answers q over rows, a whole desk oldest first, by a direct reading of the
// search rules, independent of storage.SearchPlan: the newest rows below q.Before that
// are neither corrections, blank nor redacted, that q.Viewer may read, that lie in
// q.Thread's scope and that hold every word of q.Text (its terms, less the characters a
// word of two characters among them holds); at most q.Limit of them, fewer once
// their content reaches transcript.PageBytes; Next the oldest returned when more match.
func SearchModel(rows []transcript.Message, q transcript.SearchQuery) (transcript.SearchResult, error) {
	return searchModel(rows, nil, q)
}

// Model is SearchModel over c.Rows, each row's terms found once.
func (c SearchCase) Model(q transcript.SearchQuery) (transcript.SearchResult, error) {
	return searchModel(c.Rows, c.rowTerms, q)
}

// searchModel is SearchModel, with rowTerms[i] the terms of rows[i] when rowTerms is not nil.
func searchModel(rows []transcript.Message, rowTerms [][]string, q transcript.SearchQuery) (transcript.SearchResult, error) {
	terms := queryWords(q.Text)
	long := false
	for _, t := range terms {
		long = long || len(t) > 64
	}
	if len(terms) == 0 || len(terms) > 16 || long {
		return transcript.SearchResult{}, transcript.ErrBadSearch
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	limit = min(limit, 100)
	var matches []transcript.Message
	for i := len(rows) - 1; i >= 0; i-- {
		m := rows[i]
		if q.Before != 0 && m.Seq >= q.Before || m.Corrects != 0 || m.Redacted || strings.TrimSpace(m.Content) == "" {
			continue
		}
		if q.Thread != 0 && m.Seq != q.Thread && m.Parent != q.Thread || !modelReads(q.Viewer, m) {
			continue
		}
		have := storage.Terms
		if rowTerms != nil {
			have = func(string) []string { return rowTerms[i] }
		}
		if holdsAll(have(m.Content), terms) {
			matches = append(matches, m)
		}
	}
	n, bytes := 0, 0
	for n < len(matches) && n < limit && (n == 0 || bytes+len(matches[n].Content) <= transcript.PageBytes) {
		bytes += len(matches[n].Content)
		n++
	}
	res := transcript.SearchResult{Messages: matches[:n]}
	if n < len(matches) {
		res.Next = matches[n-1].Seq
	}
	return res, nil
}

// queryWords is the words a search for text holds, read directly: the terms of text
// without each one that a word of two characters among them holds (a term whose own terms
// are more than itself is such a word, and its other terms are its two characters).
func queryWords(text string) []string {
	terms := storage.Terms(text)
	implied := make(map[string]bool)
	for _, t := range terms {
		if own := storage.Terms(t); len(own) > 1 {
			for _, u := range own {
				implied[u] = implied[u] || u != t
			}
		}
	}
	var words []string
	for _, t := range terms {
		if !implied[t] {
			words = append(words, t)
		}
	}
	return words
}

// modelReads is who may read m, read directly: a desk row everyone; an aside the operator,
// its author and its audience, and no viewer that is not a valid author.
func modelReads(v transcript.Author, m transcript.Message) bool {
	if len(m.Audience) == 0 {
		return true
	}
	if v.Validate() != nil {
		return false
	}
	if v.Kind == transcript.KindOperator || v.Kind == m.Author.Kind && v.ID == m.Author.ID {
		return true
	}
	for _, a := range m.Audience {
		if a.Kind == v.Kind && a.ID == v.ID {
			return true
		}
	}
	return false
}

func holdsAll(have, want []string) bool {
	for _, w := range want {
		found := false
		for _, h := range have {
			found = found || h == w
		}
		if !found {
			return false
		}
	}
	return true
}

// ForbiddenWords returns the words no answer to viewer, one of SearchViewers, may hold:
// the terms of every row of c viewer may not read, and of every input whose content a
// redaction erased, less the terms of the rows viewer reads now and of the cast's names.
func (c SearchCase) ForbiddenWords(viewer transcript.Author) map[string]bool {
	if f, ok := c.forbidden[viewer.String()]; ok {
		return f
	}
	return c.forbiddenWords(viewer)
}

func (c SearchCase) forbiddenWords(viewer transcript.Author) map[string]bool {
	out := make(map[string]bool)
	for i, m := range c.Rows {
		if !modelReads(viewer, m) {
			for _, t := range storage.Terms(c.Inputs[i].Content + " " + m.Content) {
				out[t] = true
			}
		}
		if m.Redacted {
			for _, t := range storage.Terms(c.Inputs[i].Content) {
				out[t] = true
			}
		}
	}
	for _, m := range c.Rows {
		if modelReads(viewer, m) {
			for _, t := range storage.Terms(m.Content) {
				delete(out, t)
			}
		}
	}
	for _, a := range append(SearchViewers[1:], searchWriters...) {
		for _, t := range storage.Terms(a.String() + " " + a.Label) {
			delete(out, t)
		}
	}
	return out
}
