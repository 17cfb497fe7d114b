package deskmcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/storage"
)

// searchModelTokens is the max_tokens of half of TestSearchDeskModel's searches: a few
// hits of its desks' rows.
const searchModelTokens = 150

// checkSearchDeskModel is TestSearchDeskModel on the search case of seed.
func checkSearchDeskModel(t *testing.T, seed uint64) {
	c := storetest.NewSearchCase(seed, 120)
	st, blind := searchCaseStores(t, c)
	svc, blindSvc := service(t, st), service(t, blind)
	paged, cut := 0, 0
	for _, v := range storetest.SearchViewers {
		if v.Validate() != nil {
			continue // a session is always a participant's
		}
		a := connect(t, svc, v)
		var outsider *agent
		if v.Same(storetest.SearchOutsider) {
			outsider = connect(t, blindSvc, v)
		}
		forbidden := c.ForbiddenWords(v)
		for i, text := range c.Texts {
			for j, thread := range c.Threads {
				// Half the scopes of each text, and bounds, limits and max_tokens varied
				// with it, so that every pairing is met across the texts.
				if (i+j)%2 == 1 {
					continue
				}
				args := deskmcp.SearchDeskArgs{Query: text, Thread: thread, Limit: []int{0, 1, 3, 200}[i%4]}
				if i%3 == 1 {
					args.Before = transcript.Sequence(len(c.Rows) / 2)
				}
				if i/4%2 == 1 {
					args.MaxTokens = searchModelTokens
				}
				what := fmt.Sprintf("seed %d: %v's search %+q in thread %d before %d, limit %d, max_tokens %d", seed, v, text, thread, args.Before, args.Limit, args.MaxTokens)
				r, out, err := search(a, args)
				checkNoWordOf(t, what, forbidden, out, r)
				if outsider != nil {
					rb, outb, errb := search(outsider, args)
					checkOutsider(t, what, r, out, err, rb, outb, errb)
				}
				if strings.Contains(out, "did not fit in max_tokens") {
					cut++
				}
				if !checkSearchDeskAnswer(t, what, c.Rows, v, args, r, out, err) || args.Limit != 3 {
					continue
				}
				paged++
				for page := 0; r.Next != 0; page++ { // paging on with next reaches every match
					if page > len(c.Rows) {
						t.Fatalf("%s: paging does not end", what)
					}
					args.Before = r.Next
					r, out, err = search(a, args)
					if strings.Contains(out, "did not fit in max_tokens") {
						cut++
					}
					checkNoWordOf(t, what, forbidden, out, r)
					if !checkSearchDeskAnswer(t, fmt.Sprintf("%s, page %d", what, page+1), c.Rows, v, args, r, out, err) {
						t.Fatalf("%s: page %d is refused: %s", what, page+1, out)
					}
				}
			}
		}
	}
	if paged == 0 || cut == 0 {
		t.Fatalf("%d searches paged, %d answers cut by max_tokens: the test misses a case", paged, cut)
	}
}

// FuzzSearchDesk: whatever the query, thread, bound, limit and max_tokens, every
// participant's search_desk answer on a search case's desk is the model's, holds no word
// of a row it may not read nor an erased one, and an outsider's is the same on the desk
// without its asides.
func FuzzSearchDesk(f *testing.F) {
	c := storetest.NewSearchCase(storetest.SearchSeeds[1], 60)
	st, blind := searchCaseStores(f, c)
	for i, text := range c.Texts {
		f.Add(text, uint64(c.Threads[i%len(c.Threads)]), uint64(i%40), i%5-1, uint16(i%3*100))
	}
	f.Add("", uint64(0), uint64(0), 0, uint16(0))
	f.Add(strings.Repeat("ß", 33), uint64(1), uint64(1<<63), 101, uint16(1))
	svc, blindSvc := service(f, st), service(f, blind)
	sessions := map[transcript.Author]*agent{}
	for _, v := range storetest.SearchViewers {
		if v.Validate() == nil { // a session is always a participant's
			sessions[v] = connect(f, svc, v)
		}
	}
	outsider := connect(f, blindSvc, storetest.SearchOutsider)
	f.Fuzz(func(t *testing.T, text string, thread, before uint64, limit int, maxTokens uint16) {
		args := deskmcp.SearchDeskArgs{Query: text, Thread: transcript.Sequence(thread), Before: transcript.Sequence(before), Limit: limit, MaxTokens: int(maxTokens)}
		for v, a := range sessions {
			what := fmt.Sprintf("%v's search %+q in thread %d before %d, limit %d, max_tokens %d", v, text, thread, before, limit, maxTokens)
			r, out, err := search(a.On(t), args)
			checkNoWordOf(t, what, c.ForbiddenWords(v), out, r)
			checkSearchDeskAnswer(t, what, c.Rows, v, args, r, out, err)
			if v.Same(storetest.SearchOutsider) {
				rb, outb, errb := search(outsider.On(t), args)
				checkOutsider(t, what, r, out, err, rb, outb, errb)
			}
		}
	})
}

// searchCaseStores returns memlog stores of c's desk and of the same desk without its
// asides.
func searchCaseStores(tb testing.TB, c storetest.SearchCase) (st, blind *memStore) {
	tb.Helper()
	st, blind = newMemStore(), newMemStore()
	for i := range c.Inputs {
		if _, err := st.Append(context.Background(), desk, c.Inputs[i]); err != nil {
			tb.Fatal(err)
		}
		if _, err := blind.Append(context.Background(), desk, c.Blinded[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return st, blind
}

// checkOutsider fails t unless an outsider's answer on the desk (r, out, err) is its
// answer on the desk without the asides (rb, outb, errb). The blinded desk holds a blank
// row where an aside was: a thread there, refused on the desk as one that does not exist,
// is searched and finds nothing.
func checkOutsider(t *testing.T, what string, r deskmcp.SearchDeskResult, out string, err error, rb deskmcp.SearchDeskResult, outb string, errb error) {
	t.Helper()
	if err != nil && strings.Contains(out, "no such thread") && errb == nil && len(rb.Messages) == 0 {
		return
	}
	if outb != out || fmt.Sprint(errb) != fmt.Sprint(err) || gocmp.Diff(rb, r, sameMessages) != "" {
		t.Fatalf("%s: the outsider's answer depends on the asides; without them:\n%s\nwith them:\n%s", what, outb, out)
	}
}

// checkSearchDeskAnswer fails t unless r (text out, refusal err), the answer to args asked
// as v of the desk of rows, is the model's: under a max_tokens, the newest of the model's
// hits that fit, with next the oldest of them when some were left out. It reports whether
// the answer holds hits to page on from.
func checkSearchDeskAnswer(t *testing.T, what string, rows []transcript.Message, v transcript.Author, args deskmcp.SearchDeskArgs, r deskmcp.SearchDeskResult, out string, err error) bool {
	t.Helper()
	want, wantErr := storetest.SearchModel(rows, transcript.SearchQuery{Text: args.Query, Viewer: v, Thread: args.Thread, Before: args.Before, Limit: args.Limit})
	switch {
	case wantErr != nil:
		if err == nil || !strings.Contains(out, "bad query") {
			t.Fatalf("%s = %q, %v; want a bad query", what, out, err)
		}
		return false
	case err != nil && strings.Contains(out, "no such thread"):
		// A thread is a row v may read that is no correction (nothing replies to one).
		if slices.ContainsFunc(rows, func(m transcript.Message) bool { return m.Seq == args.Thread && m.ReadableBy(v) && !m.IsCorrection() }) || len(want.Messages) > 0 {
			t.Fatalf("%s: %s; want the model's %v", what, out, seqs(want.Messages))
		}
		return false
	case err != nil && args.MaxTokens > 0 && len(want.Messages) > 0 && strings.Contains(out, "max_tokens too small"):
		return false
	case err != nil:
		t.Fatalf("%s: %v", what, err)
	}
	checkHitsRendered(t, what, r, out)
	kept := len(want.Messages)
	if args.MaxTokens > 0 {
		// With no hit, the line that says so is the answer, whatever the bound, as for
		// read_desk with nothing new.
		if n := tokens(t, out); n > args.MaxTokens && len(want.Messages) > 0 {
			t.Fatalf("%s: the text takes %d tokens", what, n)
		}
		kept = min(len(r.Messages), kept)
		if kept == 0 && len(want.Messages) > 0 {
			t.Fatalf("%s: no hit, want at least the newest of %v", what, seqs(want.Messages))
		}
	}
	wantNext := want.Next
	if kept < len(want.Messages) {
		wantNext = want.Messages[kept-1].Seq
	}
	if diff := gocmp.Diff(want.Messages[:kept], r.Messages, sameMessages); diff != "" || r.Next != wantNext {
		t.Fatalf("%s: next %d, want %d; the hits differ from the model's (-model +tool):\n%s", what, r.Next, wantNext, diff)
	}
	return true
}

// checkNoWordOf fails t when out or r holds a word of forbidden.
func checkNoWordOf(t *testing.T, what string, forbidden map[string]bool, out string, r any) {
	t.Helper()
	body, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range storage.Terms(out + " " + string(body)) {
		if forbidden[w] {
			t.Fatalf("%s: the answer holds %q, a word of a row the participant may not read, or erased:\n%s", what, w, out)
		}
	}
}
