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
)

// searchModelTokens is the max_tokens of half of TestSearchDeskModel's searches: a few
// hits of its desks' rows.
const searchModelTokens = 150

// checkSearchDeskModel is TestSearchDeskModel on the search case of seed.
func checkSearchDeskModel(t *testing.T, seed uint64) {
	c := storetest.NewSearchCase(seed, 120)
	st, blind := newMemStore(), newMemStore()
	for i := range c.Inputs {
		if _, err := st.Append(context.Background(), desk, c.Inputs[i]); err != nil {
			t.Fatal(err)
		}
		if _, err := blind.Append(context.Background(), desk, c.Blinded[i]); err != nil {
			t.Fatal(err)
		}
	}
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
					// The blinded desk holds a blank row where an aside was: a thread
					// there, refused on the desk, is searched and finds nothing.
					hidden := err != nil && strings.Contains(out, "no such thread") && errb == nil && len(rb.Messages) == 0
					if !hidden && (outb != out || fmt.Sprint(errb) != fmt.Sprint(err) || gocmp.Diff(rb, r, sameMessages) != "") {
						t.Fatalf("%s: the outsider's answer depends on the asides; without them:\n%s\nwith them:\n%s", what, outb, out)
					}
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
		if slices.ContainsFunc(rows, func(m transcript.Message) bool { return m.Seq == args.Thread && m.ReadableBy(v) }) || len(want.Messages) > 0 {
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
		if n := tokens(t, out); n > args.MaxTokens {
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
	for _, w := range transcript.Terms(out + " " + string(body)) {
		if forbidden[w] {
			t.Fatalf("%s: the answer holds %q, a word of a row the participant may not read, or erased:\n%s", what, w, out)
		}
	}
}
