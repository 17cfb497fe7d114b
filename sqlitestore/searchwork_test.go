package sqlitestore

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/internal/storetest"
)

// failures is a testing.TB that records its failures instead of failing the test: Fatalf
// ends the goroutine it runs on, as testing's does.
type failures struct {
	testing.TB
	mu  sync.Mutex
	got []string
}

func (f *failures) Helper() {}

func (f *failures) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.got = append(f.got, fmt.Sprintf(format, args...))
}

func (f *failures) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// TestSearchWorkCheckCatchesEverySetRead: storetest's search check, on this store's
// counters, fails a search that reads the entries of every reader set of the desk and
// drops afterwards what the viewer may not read (as the index keyed by desk only did),
// though its answers are right; and passes this store's search (on the first 20 of the
// case's texts under the race detector, proptest.Desks: the check asks one search at a time).
func TestSearchWorkCheckCatchesEverySetRead(t *testing.T) {
	t.Parallel()
	st := openTempInternal(t)
	c := storetest.NewSearchCase(1, 120)
	for desk, msgs := range map[string][]transcript.Message{"d": c.Inputs, "d-blind": c.Blinded} {
		for _, m := range msgs {
			if _, err := st.Append(t.Context(), desk, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, sb := st.Log("d").(transcript.Searcher), st.Log("d-blind").(transcript.Searcher)
	// check runs the search check for each of texts until one fails.
	check := func(texts []string) []string {
		f := &failures{TB: t}
		for _, text := range texts {
			var wg sync.WaitGroup
			wg.Go(func() { storetest.SearchCheck(f, c, s, sb, transcript.SearchQuery{Text: text}) })
			wg.Wait()
			if len(f.got) > 0 {
				break
			}
		}
		return f.got
	}
	if got := check(c.Texts[:proptest.Desks(len(c.Texts), 20)]); len(got) != 0 {
		t.Fatalf("the check fails the store's search:\n%s", strings.Join(got, "\n"))
	}
	st.searchEverySet = true
	checkWorkFailure(t, check(c.Texts))
}

// TestSearchWorkCheckCatchesEveryThreadSetRead: so it does within a thread whose replies
// are mostly asides (storetest.NewThreadSearchCase), for a search that walks the thread's
// replies of every reader set.
func TestSearchWorkCheckCatchesEveryThreadSetRead(t *testing.T) {
	st := openTempInternal(t)
	c := storetest.NewThreadSearchCase(40)
	for desk, msgs := range map[string][]transcript.Message{"d": c.Inputs, "d-blind": c.Blinded} {
		for _, m := range msgs {
			if _, err := st.Append(t.Context(), desk, m); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, sb := st.Log("d").(transcript.Searcher), st.Log("d-blind").(transcript.Searcher)
	check := func() []string {
		f := &failures{TB: t}
		var wg sync.WaitGroup
		wg.Go(func() {
			for _, text := range c.Texts {
				for _, thread := range c.Threads {
					storetest.SearchCheck(f, c, s, sb, transcript.SearchQuery{Text: text, Thread: thread})
				}
			}
		})
		wg.Wait()
		return f.got
	}
	if got := check(); len(got) != 0 {
		t.Fatalf("the check fails the store's search:\n%s", strings.Join(got, "\n"))
	}
	st.searchEverySet = true
	checkWorkFailure(t, check())
}

// checkWorkFailure fails t unless a failure of got tells of an outsider's search work.
func checkWorkFailure(t *testing.T, got []string) {
	t.Helper()
	for _, f := range got {
		if strings.Contains(f, "search work depends on the asides") {
			t.Logf("the first failure: %.400s", f)
			return
		}
	}
	t.Errorf("no failure tells of the outsider's search work; the failures:\n%s", strings.Join(got, "\n"))
}
