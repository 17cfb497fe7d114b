package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/storage"
)

// The words of NewThreadSearchCase: threadAsideWord only asides hold, threadDeskWord only
// desk rows, threadCommonWord both.
const (
	threadAsideWord  = "acmecorp"
	threadDeskWord   = "noted"
	threadCommonWord = "deploy"
)

// NewThreadSearchCase returns a search case of two threads whose replies are mostly
// asides its outsiders may not read: row 1, a desk row, with replies replies in turn a desk
// row and three asides of agent:triage to agent:coder, and row 2, an aside of theirs, with
// asides replying to it among them. Its Threads are 1 and 2; its Texts a word of the
// asides only, of the desk rows only, of both, of no row, of the root only, and two words
// together.
func NewThreadSearchCase(replies int) SearchCase {
	log := memlog.New()
	ctx := context.Background()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	var c SearchCase
	add := func(m transcript.Message) {
		seq := len(c.Inputs) + 1
		m.At = start.Add(time.Duration(seq) * time.Second)
		stored, err := log.Append(ctx, m)
		if err != nil {
			panic(fmt.Sprintf("storetest: the thread case's row %d: %v", seq, err)) // the case is made valid
		}
		c.Inputs = append(c.Inputs, m)
		blind := m
		if stored.IsAside() {
			blind = transcript.Message{Author: m.Author, Content: " ", At: m.At}
		}
		c.Blinded = append(c.Blinded, blind)
	}
	private := []transcript.Author{searchCoder}
	add(transcript.Message{Author: searchAna, Content: "Deploy plan: the migration rota"})
	add(transcript.Message{Author: searchTriage, Audience: private, Content: "ACMECORP pricing, before the deploy"})
	for i := range replies {
		seq := len(c.Inputs) + 1
		switch i % 4 {
		case 0:
			add(transcript.Message{Author: searchRaj, Parent: 1, Content: fmt.Sprintf("%s %s, step %d", threadCommonWord, threadDeskWord, i)})
		case 1, 2:
			add(transcript.Message{Author: searchTriage, Audience: private, Parent: 1, Content: fmt.Sprintf("%s renewal %s %s", threadAsideWord, threadCommonWord, asideMarker(seq))})
		default:
			add(transcript.Message{Author: searchCoder, Audience: []transcript.Author{searchTriage}, Parent: 2, Content: fmt.Sprintf("%s terms %s", threadAsideWord, asideMarker(seq))})
		}
	}
	c.Rows = log.Messages()
	c.Texts = []string{threadAsideWord, threadDeskWord, threadCommonWord, "initech", "rota", threadCommonWord + " " + threadAsideWord, asideMarker(3)}
	c.Threads = []transcript.Sequence{1, 2}
	c.index()
	return c
}

// index computes what c's checks read of its rows: their terms, and the words forbidden
// to each of SearchViewers.
func (c *SearchCase) index() {
	c.rowTerms = c.rowTerms[:0]
	for _, m := range c.Rows {
		c.rowTerms = append(c.rowTerms, storage.Terms(m.Content))
	}
	c.forbidden = make(map[string]map[string]bool)
	for _, v := range SearchViewers {
		c.forbidden[v.String()] = c.forbiddenWords(v)
	}
}

// threadSearchReplies is how many replies the desk of threadSearchRule holds.
const threadSearchReplies = 240

// threadSearchRule checks thread searches on st, a new store: it appends a
// NewThreadSearchCase desk to "search-thread" and the same desk without its asides to
// "search-thread-blind" (the two roots one by one, the replies in one batch), and checks
// SearchCheck for every text (every fifth when SearchDraw is short of the seeds) in each
// thread, with limits and a bound varied: an outsider's answers and work must not depend
// on the asides among the thread's replies.
func threadSearchRule(t *testing.T, st Store) {
	t.Helper()
	c := NewThreadSearchCase(threadSearchReplies)
	for desk, msgs := range map[string][]transcript.Message{"search-thread": c.Inputs, "search-thread-blind": c.Blinded} {
		appendAll(t, st, desk, msgs[:2])
		if err := st.AppendBatch(context.Background(), desk, msgs[2:]); err != nil {
			t.Fatalf("storetest: appending the replies to %s: %v", desk, err)
		}
	}
	s, sb := searcherOf(t, st.Log("search-thread")), searcherOf(t, st.Log("search-thread-blind"))
	for i := 0; i < len(c.Texts); i += searchStride() {
		text := c.Texts[i]
		for _, thread := range c.Threads {
			for _, q := range []transcript.SearchQuery{
				{Limit: 0}, {Limit: 3}, {Limit: 100}, {Limit: 3, Before: transcript.Sequence(len(c.Rows) / 2)},
			} {
				q.Text, q.Thread = text, thread
				searchCheck(t, c, s, sb, q)
			}
		}
	}
}
