package deskmcp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/render"
)

// search calls search_desk, returning a tool error rather than failing the test.
func search(a *agent, args deskmcp.SearchDeskArgs) (deskmcp.SearchDeskResult, string, error) {
	var r deskmcp.SearchDeskResult
	text, err := a.Call("search_desk", args, &r)
	return r, text, err
}

// checkHitsRendered fails t unless text holds every hit of r in its envelope, newest
// first, and nothing after the last.
func checkHitsRendered(t *testing.T, what string, r deskmcp.SearchDeskResult, text string) {
	t.Helper()
	rest := text
	for _, m := range r.Messages {
		env := render.Envelope(m)
		i := strings.Index(rest, env)
		if i < 0 {
			t.Fatalf("%s: the text lacks the envelope of #%d, or not newest first:\n%s", what, m.Seq, text)
		}
		rest = rest[i+len(env):]
	}
	if len(r.Messages) > 0 && rest != "" {
		t.Fatalf("%s: the text goes on after the last hit: %q", what, rest)
	}
}

// TestSearchDesk: an agent finds, as itself, the messages it may read that hold every word
// of its query, in the whole desk or in one thread, newest first, each in its envelope
// with its author (an aside with its readers, an edit revised); an edited message is found
// by its new words only, a redacted one by nothing, and an aside by no outsider.
func TestSearchDesk(t *testing.T) {
	st := newMemStore()
	svc := service(t, st)
	a, b := connect(t, svc, agentA), connect(t, svc, agentB)
	op := connect(t, svc, transcript.Operator())
	r1 := appendAs(t, st, transcript.Message{Author: ana, Content: "The migration is on Friday."})
	r2 := b.Post(deskmcp.PostMessageArgs{Content: "Migration rota: Ana, then Raj", Parent: r1.Seq})
	r3 := a.Post(deskmcp.PostMessageArgs{Content: "deploy notes"})
	r4 := appendAs(t, st, transcript.Message{Author: ana, Content: "migration password hunter2", Audience: []transcript.Author{agentA}})
	r5 := b.Post(deskmcp.PostMessageArgs{Content: "old migration plan"})
	if _, _, err := edit(b, deskmcp.EditMessageArgs{Seq: r5.Seq, Content: "new rollout plan"}); err != nil {
		t.Fatal(err)
	}
	r6 := appendAs(t, st, transcript.Message{Author: ana, Content: "migration keys, erase me"})
	if _, _, err := redact(op, deskmcp.RedactMessageArgs{Seq: r6.Seq}); err != nil {
		t.Fatal(err)
	}
	r7 := appendAs(t, st, transcript.Message{Author: ana, Content: "MIGRATION later", Parent: r3.Seq})

	seqsOf := func(ms ...transcript.Message) []transcript.Sequence { return seqs(ms) }
	for _, c := range []struct {
		who  *agent
		name string
		args deskmcp.SearchDeskArgs
		want []transcript.Sequence
	}{
		{a, "A", deskmcp.SearchDeskArgs{Query: "migration"}, seqsOf(r7, r4, r2, r1)},
		{b, "B", deskmcp.SearchDeskArgs{Query: "migration"}, seqsOf(r7, r2, r1)},
		{a, "A", deskmcp.SearchDeskArgs{Query: "migration", Thread: r1.Seq}, seqsOf(r2, r1)},
		{a, "A", deskmcp.SearchDeskArgs{Query: "Migration", Thread: r3.Seq}, seqsOf(r7, r3)[:1]},
		{a, "A", deskmcp.SearchDeskArgs{Query: "rota, ANA"}, seqsOf(r2)},
		{a, "A", deskmcp.SearchDeskArgs{Query: "rollout"}, seqsOf(r5)},
		{a, "A", deskmcp.SearchDeskArgs{Query: "old plan"}, nil},
		{op, "the operator", deskmcp.SearchDeskArgs{Query: "erase"}, nil},
		{op, "the operator", deskmcp.SearchDeskArgs{Query: "hunter2"}, seqsOf(r4)},
		{b, "B", deskmcp.SearchDeskArgs{Query: "hunter2"}, nil},
		{a, "A", deskmcp.SearchDeskArgs{Query: "migration", Before: r4.Seq}, seqsOf(r2, r1)},
	} {
		what := fmt.Sprintf("%s's search %+v", c.name, c.args)
		r, text, err := search(c.who, c.args)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := seqs(r.Messages); !slices.Equal(got, c.want) || r.Next != 0 {
			t.Errorf("%s = %v, next %d; want %v, next 0", what, got, r.Next, c.want)
		}
		checkHitsRendered(t, what, r, text)
		header, _, _ := strings.Cut(text, "\n")
		if !strings.Contains(header, "No older hits.") && len(c.want) > 0 {
			t.Errorf("%s: the first line does not say there are no older hits: %q", what, header)
		}
		if len(c.want) == 0 && (text != header || !strings.Contains(header, "No message you can read")) {
			t.Errorf("%s: want the line that says nothing was found, got:\n%s", what, text)
		}
		if c.who == b && (strings.Contains(text, "hunter2") || strings.Contains(fmt.Sprint(r), "hunter2")) {
			t.Errorf("%s holds the aside's content:\n%s", what, text)
		}
	}

	r, text := a.Search(deskmcp.SearchDeskArgs{Query: "migration"})
	if !r.Messages[1].Author.Same(ana) || r.Messages[1].Author.Label != "Ana" || !r.Messages[2].Author.Same(agentB) {
		t.Errorf("the hits' authors are %v, %v; want Ana's aside and B's reply", r.Messages[1].Author, r.Messages[2].Author)
	}
	if !strings.Contains(text, `readers="person:ana,agent:a"`) || !strings.Contains(text, fmt.Sprintf(`parent="%d"`, r1.Seq)) {
		t.Errorf("the aside's readers or the reply's parent are not in the text:\n%s", text)
	}
	if r, text := a.Search(deskmcp.SearchDeskArgs{Query: "rollout"}); r.Messages[0].Revised == 0 || !strings.Contains(text, "revised=") || !strings.Contains(text, "new rollout plan") {
		t.Errorf("the edited hit is not shown with its new content, revised: %+v\n%s", r, text)
	}
}

// TestSearchDeskPaging: with a limit, the hits come a page at a time, and following next
// (before=next) reaches every one, each once, newest first, to a page that says there are
// no older hits.
func TestSearchDeskPaging(t *testing.T) {
	st := newMemStore()
	svc := service(t, st)
	a := connect(t, svc, agentA)
	var want []transcript.Sequence
	for i := range 23 {
		m := appendAs(t, st, transcript.Message{Author: ana, Content: fmt.Sprintf("status report %d", i)})
		appendAs(t, st, transcript.Message{Author: ana, Content: fmt.Sprintf("noise %d", i)})
		want = append([]transcript.Sequence{m.Seq}, want...)
	}
	var got []transcript.Sequence
	args := deskmcp.SearchDeskArgs{Query: "report status", Limit: 4}
	for page := 0; ; page++ {
		if page > len(want) {
			t.Fatal("paging does not end")
		}
		r, text := a.Search(args)
		checkHitsRendered(t, fmt.Sprint("page ", page), r, text)
		got = append(got, seqs(r.Messages)...)
		if r.Next == 0 {
			if !strings.Contains(text, "No older hits.") {
				t.Errorf("the last page does not say there are no older hits:\n%s", text)
			}
			break
		}
		if len(r.Messages) != 4 || !strings.Contains(text, fmt.Sprintf("before=%d", r.Next)) {
			t.Errorf("page %d: %d hits, text without before=%d:\n%s", page, len(r.Messages), r.Next, text)
		}
		args.Before = r.Next
	}
	if !slices.Equal(got, want) {
		t.Errorf("the pages hold %v, want %v", got, want)
	}
}

// TestSearchDeskMaxTokens: under max_tokens a result keeps its newest hits that fit, whole,
// and next names the first left out; paging on reaches every hit, each once, and a bound
// that holds not even the newest hit is ErrTooFewTokens.
func TestSearchDeskMaxTokens(t *testing.T) {
	st := newMemStore()
	svc := service(t, st)
	a := connect(t, svc, agentA)
	for i := range 9 {
		appendAs(t, st, transcript.Message{Author: ana, Content: longContent(i)})
	}
	all, _ := a.Search(deskmcp.SearchDeskArgs{Query: "canary"})
	if len(all.Messages) != 9 || all.Next != 0 {
		t.Fatalf("the unbounded search holds %v, next %d; want all 9", seqs(all.Messages), all.Next)
	}
	const max = 800
	var got []transcript.Sequence
	args := deskmcp.SearchDeskArgs{Query: "canary", MaxTokens: max}
	cut := false
	for page := 0; ; page++ {
		if page > 9 {
			t.Fatal("paging does not end")
		}
		r, text := a.Search(args)
		checkHitsRendered(t, fmt.Sprint("page ", page), r, text)
		if n := tokens(t, text); n > max {
			t.Fatalf("page %d takes %d tokens, over %d", page, n, max)
		}
		if len(r.Messages) == 0 {
			t.Fatalf("page %d holds no hit:\n%s", page, text)
		}
		got = append(got, seqs(r.Messages)...)
		if r.Next == 0 {
			break
		}
		if r.Next != r.Messages[len(r.Messages)-1].Seq || !strings.Contains(text, "did not fit in max_tokens 800") {
			t.Errorf("page %d: next %d, want its oldest hit #%d, and the text says what did not fit:\n%s", page, r.Next, r.Messages[len(r.Messages)-1].Seq, text)
		}
		cut = true
		args.Before = r.Next
	}
	if !cut {
		t.Fatal("max_tokens cut nothing: the test tests nothing")
	}
	if !slices.Equal(got, seqs(all.Messages)) {
		t.Errorf("the pages hold %v, want %v", got, seqs(all.Messages))
	}
	if _, text, err := search(a, deskmcp.SearchDeskArgs{Query: "canary", MaxTokens: 40}); err == nil || !strings.Contains(text, "max_tokens too small") {
		t.Errorf("a bound below the newest hit = %q, %v; want max_tokens too small", text, err)
	}
	if r, text, err := search(a, deskmcp.SearchDeskArgs{Query: "nowhere", MaxTokens: 40}); err != nil || len(r.Messages) != 0 {
		t.Errorf("a search with no hit under a small bound = %q, %v; want the line that says so", text, err)
	}
}

// noSearchStore is a store whose logs cannot search.
type noSearchStore struct{ *memStore }

func (s noSearchStore) Log(desk string) transcript.Log {
	return struct{ transcript.Log }{s.memStore.Log(desk)}
}

// failingStore is a store whose searches fail.
type failingStore struct{ *memStore }

type failingLog struct{ transcript.Log }

func (failingStore) Log(string) transcript.Log { return failingLog{} }

func (failingLog) Search(context.Context, transcript.SearchQuery) (transcript.SearchResult, error) {
	return transcript.SearchResult{}, errors.New("disk on fire")
}

// TestSearchDeskErrors: a query with no word, too many words or a word too long is a
// tool error that names the query and quotes none of it; so is a bad argument; a store
// that cannot search, or fails, is refused in words that say so; and no query reaches
// the log.
func TestSearchDeskErrors(t *testing.T) {
	st := newMemStore()
	a := connect(t, service(t, st), agentA)
	appendAs(t, st, transcript.Message{Author: ana, Content: "zanzibar"})
	many := strings.Repeat("zanzibar ", 16) + "zanzibarx"
	var words []string
	for i := range 17 {
		words = append(words, fmt.Sprint("zanzibar", i))
	}
	for _, c := range []struct {
		args any
		want string
	}{
		{deskmcp.SearchDeskArgs{Query: ""}, "bad query: the text holds no word"},
		{deskmcp.SearchDeskArgs{Query: " ?! -- "}, "bad query: the text holds no word"},
		{deskmcp.SearchDeskArgs{Query: strings.Join(words, " ")}, "bad query: the text holds 17 words"},
		{deskmcp.SearchDeskArgs{Query: "zanzibar " + strings.Repeat("z", 65)}, "bad query: a word is 65 bytes long"},
		{map[string]any{"thread": 1}, "query"},
		{map[string]any{"query": "zanzibar", "max_tokens": -1}, "max_tokens"},
		{map[string]any{"query": "zanzibar", "before": -1}, "before"},
		{map[string]any{"query": "zanzibar", "as": "operator"}, "as"},
		{deskmcp.SearchDeskArgs{Query: "zanzibar", Thread: 99}, "no such thread 99"},
		{deskmcp.SearchDeskArgs{Query: "", Thread: 99}, "bad query"},
	} {
		var ignored any
		text, err := a.Call("search_desk", c.args, &ignored)
		if err == nil || !strings.Contains(text, c.want) {
			t.Errorf("search_desk %+v = %q, %v; want a tool error mentioning %q", c.args, text, err, c.want)
		}
		if strings.Contains(text, "zanzibar") || strings.Contains(text, "zzz") {
			t.Errorf("search_desk %+v: the refusal quotes the query: %q", c.args, text)
		}
	}
	if r, _ := a.Search(deskmcp.SearchDeskArgs{Query: many}); len(r.Messages) != 0 {
		t.Errorf("16 words and one more found %v", seqs(r.Messages))
	}

	if _, text, err := search(connect(t, service(t, noSearchStore{st}), agentA), deskmcp.SearchDeskArgs{Query: "zanzibar"}); err == nil || !strings.Contains(text, "cannot search") {
		t.Errorf("a store that cannot search = %q, %v; want %v", text, err, deskmcp.ErrNoSearch)
	}
	var logged bytes.Buffer
	svc, err := deskmcp.New(failingStore{st}, st, deskmcp.Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	_, text, err := search(connect(t, svc, agentA), deskmcp.SearchDeskArgs{Query: "zanzibar secret"})
	if err == nil || text != "the desk is unavailable, try again" {
		t.Errorf("a failed search = %q, %v; want %v", text, err, deskmcp.ErrUnavailable)
	}
	if !strings.Contains(logged.String(), "disk on fire") || strings.Contains(logged.String(), "zanzibar") {
		t.Errorf("the log of a failed search does not hold the failure, or holds the query:\n%s", logged.String())
	}
}

// TestSearchDeskModel: on random desks of several scripts with asides, blank rows,
// replies, edits and redactions (storetest.NewSearchCase), every participant's search_desk
// answer is the model's (storetest.SearchModel), page after page, within max_tokens when
// it is given; its text and structured content hold no word of a row the participant may
// not read, nor an erased one; and an outsider's answers, text and all, are those of the
// same desk without its asides.
func TestSearchDeskModel(t *testing.T) {
	for _, seed := range storetest.SearchSeeds[:1] {
		t.Run(fmt.Sprint(seed), func(t *testing.T) { checkSearchDeskModel(t, seed) })
	}
}

// TestSearchDeskByteBudget: a page whose hits' content passes the service's byte budget
// (Options.MaxAnswerBytes) keeps its newest hits within it, at least one, and next names
// the first left out.
func TestSearchDeskByteBudget(t *testing.T) {
	st := newMemStore()
	svc, err := deskmcp.New(st, st, deskmcp.Options{MaxAnswerBytes: 2500})
	if err != nil {
		t.Fatal(err)
	}
	a := connect(t, svc, agentA)
	var want []transcript.Sequence
	for i := range 5 {
		m := appendAs(t, st, transcript.Message{Author: ana, Content: "budget " + strings.Repeat(fmt.Sprint(i), 1000)})
		want = append([]transcript.Sequence{m.Seq}, want...)
	}
	var got []transcript.Sequence
	args := deskmcp.SearchDeskArgs{Query: "budget"}
	for page := 0; ; page++ {
		r, text := a.Search(args)
		if len(r.Messages) != min(2, len(want)-len(got)) {
			t.Fatalf("page %d holds %v, want 2 hits of 1,007 bytes in 2,500 (or the last one)", page, seqs(r.Messages))
		}
		got = append(got, seqs(r.Messages)...)
		if r.Next == 0 {
			break
		}
		if !strings.Contains(text, "did not fit in the answer's byte budget") || r.Next != got[len(got)-1] {
			t.Fatalf("page %d: next %d, and the text does not say the byte budget cut it:\n%s", page, r.Next, text)
		}
		args.Before = r.Next
	}
	if !slices.Equal(got, want) {
		t.Errorf("the pages hold %v, want %v", got, want)
	}
}

// countingStore is a store whose logs count their searches.
type countingStore struct {
	*memStore
	searches *atomic.Int32
}

type countedLog struct {
	transcript.Log
	searches *atomic.Int32
}

func (s countingStore) Log(desk string) transcript.Log {
	return countedLog{s.memStore.Log(desk), s.searches}
}

func (l countedLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	l.searches.Add(1)
	return l.Log.(transcript.Searcher).Search(ctx, q)
}

// TestSearchDeskThreadFirst: a thread the participant may not read, or that does not
// exist, is refused before the store searches any of it, so that how long the refusal
// takes cannot tell an aside's thread from a missing one; a bad query before either.
func TestSearchDeskThreadFirst(t *testing.T) {
	st := countingStore{newMemStore(), new(atomic.Int32)}
	aside := appendAs(t, st.memStore, transcript.Message{Author: ana, Content: "zanzibar", Audience: []transcript.Author{agentB}})
	a := connect(t, service(t, st), agentA)
	for _, args := range []deskmcp.SearchDeskArgs{{Query: "zanzibar", Thread: aside.Seq}, {Query: "zanzibar", Thread: 99}, {Query: "", Thread: aside.Seq}} {
		if _, _, err := search(a, args); err == nil {
			t.Fatalf("search_desk %+v: no refusal", args)
		}
		if n := st.searches.Load(); n != 0 {
			t.Fatalf("search_desk %+v: the store searched %d times before the refusal", args, n)
		}
	}
}
