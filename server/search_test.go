package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/storage"
)

// searchPath is the search route of desk eng for q and the other parameters, "k=v&...".
func searchPath(q string, params ...string) string {
	p := "/v1/desks/eng/search?q=" + url.QueryEscape(q)
	for _, kv := range params {
		p += "&" + kv
	}
	return p
}

// searchFor is the search for q as the holder of secret, wanting 200.
func (e *env) searchFor(t *testing.T, secret, q string, params ...string) server.SearchAnswer {
	t.Helper()
	return decode[server.SearchAnswer](t, e.do("GET", searchPath(q, params...), secret, nil), 200)
}

// words is n different words, "w1 w2 ...".
func words(n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", i+1)
	}
	return strings.Join(ws, " ")
}

// TestSearch: the search route answers the newest rows holding every word, among those the
// participant may read; as= and the desk of a token are as for the view; a bad q is 400
// naming q without quoting it; edits are found by their new words and erased content by
// nothing; next pages to the end; the log never holds the words searched.
func TestSearch(t *testing.T) {
	eachStore(t, func(t *testing.T, st server.Store) {
		f := newFixture(t, st, server.Options{Rate: rate.Inf})
		e := f.env
		answer := func(a server.SearchAnswer) string { return fmt.Sprintf("%s next %d", seqs(a.Messages), a.Next) }

		t.Run("words", func(t *testing.T) {
			for _, c := range []struct {
				who, q, as, want string
			}{
				{f.coder, "deploy", "", "1 next 0"},
				{f.coder, "TODAY  Deploy!", "", "1 next 0"},
				{f.coder, "deploy yes", "", " next 0"},
				{f.coder, "launch", "", " next 0"}, // the aside's word
				{f.coder, "launch code", "", " next 0"},
				{f.triage, "launch", "", "3 next 0"},
				{f.op, "launch", "", "3 next 0"},
				{f.op, "launch", "agent:coder", " next 0"},
				{f.op, "launch", "agent:triage", "3 next 0"},
				{f.triage, "yes", "", "2 next 0"},
			} {
				var params []string
				if c.as != "" {
					params = append(params, "as="+c.as)
				}
				if got := answer(e.searchFor(t, c.who, c.q, params...)); got != c.want {
					t.Errorf("search %q as %q: %s, want %s", c.q, c.as, got, c.want)
				}
			}
			// An outsider's answer for a word of the aside alone is that of a word nowhere.
			launch := e.do("GET", searchPath("launch"), f.coder, nil)
			nowhere := e.do("GET", searchPath("nowhere"), f.coder, nil)
			if string(launch.body) != string(nowhere.body) || string(launch.body) != `{"messages":[],"next":0}`+"\n" {
				t.Errorf("coder's search for the aside's word: %s; for a word nowhere: %s", launch.body, nowhere.body)
			}
		})

		t.Run("viewer", func(t *testing.T) {
			wantProblem(t, e.do("GET", searchPath("deploy", "as=operator"), f.coder, nil), 403, "forbidden")
			wantProblem(t, e.do("GET", searchPath("launch", "as=agent:triage"), f.coder, nil), 403, "forbidden")
			wantProblem(t, e.do("GET", searchPath("deploy", "as=nobody"), f.op, nil), 400, "invalid-request")
			// A token for ops on eng, which exists, gets what it gets on a desk that does not.
			ops := e.token("ops", coder)
			missing := wantProblem(t, e.do("GET", strings.Replace(searchPath("deploy"), "/eng/", "/nosuchdesk/", 1), ops, nil), 404, "not-found")
			notMine := wantProblem(t, e.do("GET", searchPath("deploy"), ops, nil), 404, "not-found")
			if missing != notMine {
				t.Errorf("another desk's token: %+v; a desk that does not exist: %+v", notMine, missing)
			}
			wantProblem(t, e.do("GET", searchPath("deploy"), "", nil), 401, "unauthorized")
			wantProblem(t, e.do("GET", searchPath("deploy"), "trs_not-a-token", nil), 401, "unauthorized")
		})

		t.Run("thread", func(t *testing.T) {
			if got := answer(e.searchFor(t, f.coder, "yes", fmt.Sprintf("thread=%d", f.root.Seq))); got != "2 next 0" {
				t.Errorf("in the thread: %s", got)
			}
			if got := answer(e.searchFor(t, f.coder, "yes", fmt.Sprintf("thread=%d", f.reply.Seq))); got != "2 next 0" {
				t.Errorf("in the reply's thread: %s", got)
			}
			missing := wantProblem(t, e.do("GET", searchPath("launch", "thread=99"), f.coder, nil), 404, "not-found")
			hidden := wantProblem(t, e.do("GET", searchPath("launch", fmt.Sprintf("thread=%d", f.aside.Seq)), f.coder, nil), 404, "not-found")
			if missing != hidden {
				t.Errorf("a thread the viewer may not read: %+v; one that does not exist: %+v", hidden, missing)
			}
			if got := answer(e.searchFor(t, f.triage, "launch", fmt.Sprintf("thread=%d", f.aside.Seq))); got != "3 next 0" {
				t.Errorf("triage in the aside's thread: %s", got)
			}
		})

		t.Run("bad words", func(t *testing.T) {
			long := strings.Repeat("é", 33) // 66 bytes
			for _, q := range []string{"", "?!", words(17), long, strings.Repeat("x", 65)} {
				for _, extra := range []string{"", fmt.Sprintf("thread=%d", f.aside.Seq), "thread=99"} {
					p := wantProblem(t, e.do("GET", searchPath(q, extra), f.coder, nil), 400, "invalid-request")
					if !strings.HasPrefix(p.Detail, "q: the text holds") && !strings.HasPrefix(p.Detail, "q: a word is") {
						t.Errorf("search %q: detail %q does not name q", q, p.Detail)
					}
					for _, w := range storage.Terms(q) {
						if strings.Contains(p.Detail, w) {
							t.Errorf("search %q: detail %q quotes it", q, p.Detail)
						}
					}
				}
			}
			e.searchFor(t, f.coder, strings.Repeat("w", 64)) // 64 bytes: a word
			e.searchFor(t, f.coder, words(16)+" W1 w2")
			e.searchFor(t, f.coder, "deploy", "limit=-1", "before=0", "thread=0") // bounds the library clamps
			e.searchFor(t, f.coder, "deploy", "limit=500")
			wantProblem(t, e.do("GET", searchPath("deploy", "limit=x"), f.coder, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", searchPath("deploy", "words=x"), f.coder, nil), 400, "invalid-request")
			wantProblem(t, e.do("GET", "/v1/desks/eng/search", f.coder, nil), 400, "invalid-request")
		})

		t.Run("pages", func(t *testing.T) {
			var posted []transcript.Sequence
			for i := range 5 {
				posted = append(posted, e.post(f.coder, map[string]any{"content": fmt.Sprintf("page %d of the rota", i)}).Seq)
			}
			var got []string
			next := "0"
			for range 4 {
				a := e.searchFor(t, f.triage, "ROTA", "limit=2", "before="+next)
				got = append(got, seqs(a.Messages))
				if a.Next == 0 {
					break
				}
				next = fmt.Sprint(a.Next)
			}
			want := []string{fmt.Sprintf("%d,%d", posted[4], posted[3]), fmt.Sprintf("%d,%d", posted[2], posted[1]), fmt.Sprint(posted[0])}
			if strings.Join(got, " | ") != strings.Join(want, " | ") {
				t.Errorf("pages %q, want %q", got, want)
			}
		})

		t.Run("corrections", func(t *testing.T) {
			edited := e.post(f.coder, map[string]any{"content": "the oldword plan"})
			decode[transcript.Message](t, e.do("PATCH", messagePath(edited.Seq), f.coder, map[string]any{"content": "the newword plan"}), 201)
			erased := e.post(f.coder, map[string]any{"content": "the erasedword plan"})
			decode[transcript.Message](t, e.do("DELETE", messagePath(erased.Seq), f.coder, nil), 201)
			for _, who := range []string{f.op, f.coder, f.triage} {
				for _, q := range []string{"oldword", "erasedword", "erasedword plan"} {
					r := e.do("GET", searchPath(q), who, nil)
					if a := decode[server.SearchAnswer](t, r, 200); len(a.Messages) != 0 || a.Next != 0 {
						t.Errorf("search %q: %s", q, r.body)
					}
				}
				a := e.searchFor(t, who, "plan")
				if seqs(a.Messages) != fmt.Sprint(edited.Seq) || a.Messages[0].Content != "the newword plan" || a.Messages[0].Revised == 0 {
					t.Errorf("search plan: %+v", a)
				}
				if got := seqs(e.searchFor(t, who, "newword").Messages); got != fmt.Sprint(edited.Seq) {
					t.Errorf("search newword: %s", got)
				}
			}
		})

		t.Run("log", func(t *testing.T) {
			e.searchFor(t, f.coder, "xyzzyquery")
			e.do("GET", searchPath("xyzzyquery "+strings.Repeat("x", 80)), f.coder, nil)
			if logs := e.log.String(); strings.Contains(logs, "xyzzyquery") || strings.Contains(logs, asideText) {
				t.Errorf("the log holds the words searched or the aside:\n%s", logs)
			}
		})
	})
}

// TestSearchAnswerBytes: an answer holds no more than Options.MaxAnswerBytes of content,
// its oldest matches past it left for the next page, and always one match.
func TestSearchAnswerBytes(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{MaxAnswerBytes: 100})
	secret := e.token("eng", coder)
	var posted []transcript.Sequence
	for i := range 3 {
		posted = append(posted, e.post(secret, map[string]any{"content": fmt.Sprintf("big %d %s", i, strings.Repeat("x", 40))}).Seq)
	}
	posted = append(posted, e.post(secret, map[string]any{"content": "big " + strings.Repeat("y", 200)}).Seq)
	var got []string
	before := "0"
	for range 5 {
		a := e.searchFor(t, secret, "big", "before="+before)
		got = append(got, fmt.Sprintf("%s>%d", seqs(a.Messages), a.Next))
		if a.Next == 0 {
			break
		}
		before = fmt.Sprint(a.Next)
	}
	want := fmt.Sprintf("%d>%d %d,%d>%d %d>0", posted[3], posted[3], posted[2], posted[1], posted[1], posted[0])
	if strings.Join(got, " ") != want {
		t.Errorf("pages %s, want %s", strings.Join(got, " "), want)
	}
}

// TestSearchWithoutSearcher: a store whose logs cannot search answers 501, saying so; a
// thread or a q is not looked at.
func TestSearchWithoutSearcher(t *testing.T) {
	e := newEnv(t, withoutSearch{sqliteStore(t)}, server.Options{})
	secret := e.token("eng", coder)
	for _, path := range []string{searchPath("deploy"), searchPath(""), searchPath("deploy", "thread=9")} {
		p := wantProblem(t, e.do("GET", path, secret, nil), 501, "not-implemented")
		if p.Detail != "the desk's store cannot search" {
			t.Errorf("%s: detail %q", path, p.Detail)
		}
	}
}

// TestSearchModel: storetest's search checks, asked through the route: on random desks in
// many scripts, with asides, blank rows, replies, edits and redactions, for every viewer,
// thread, bound and limit, the route answers what the library's model answers, pages
// through next to the end, holds no word a viewer may not read, and answers an outsider
// as if the asides did not exist.
//
// Under -race, which slows SQLite's translated C many times over, it skips: FuzzSearch's
// seeds ask one case's every search through the route there.
func TestSearchModel(t *testing.T) {
	if raceEnabled {
		t.Skip("under -race, FuzzSearch's seeds stand for the search checks")
	}
	storetest.SearchRule(t, newHTTPSearchStore(t))
}

// FuzzSearch: whatever the words, thread, bound and limit, the route answers on a search
// case's desk what the model answers, as every viewer, with no word a viewer may not read
// and an outsider's answer the same without the asides.
func FuzzSearch(f *testing.F) {
	st := newHTTPSearchStore(f)
	c := storetest.NewSearchCase(storetest.SearchSeeds[0], 60)
	for desk, rows := range map[string][]transcript.Message{"fuzz": c.Inputs, "fuzz-blind": c.Blinded} {
		for _, m := range rows {
			if _, err := st.Append(context.Background(), desk, m); err != nil {
				f.Fatal(err)
			}
		}
	}
	s, sb := st.Log("fuzz").(transcript.Searcher), st.Log("fuzz-blind").(transcript.Searcher)
	for i, text := range c.Texts {
		f.Add(text, uint64(c.Threads[i%len(c.Threads)]), uint64(i%40), i%5-1)
	}
	f.Add("", uint64(0), uint64(0), 0)
	f.Add(strings.Repeat("ß", 33), uint64(1), uint64(1<<63), 101)
	f.Fuzz(func(t *testing.T, text string, thread, before uint64, limit int) {
		storetest.SearchCheck(t, c, s, sb, transcript.SearchQuery{Text: text, Thread: transcript.Sequence(thread),
			Before: transcript.Sequence(before), Limit: limit})
	})
}

// newHTTPSearchStore is a new SQLite store whose logs search through a server's route
// (httpSearchStore), closed when tb ends.
func newHTTPSearchStore(tb testing.TB) *httpSearchStore {
	sq, err := sqlitestore.Open(context.Background(), tb.TempDir()+"/desk.db")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { sq.Close() })
	srv, err := server.New(sq, server.Options{Rate: rate.Inf})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Shutdown(context.Background()) })
	add := func(desk string) string { return benchToken(tb, sq, desk, operator) }
	return &httpSearchStore{Store: sq, srv: srv, add: add, secrets: map[string]string{}}
}

// TestOpenAPISearch: the document describes the search route: its parameters, its answer's
// schema and the problems it answers with.
func TestOpenAPISearch(t *testing.T) {
	e := newEnv(t, sqliteStore(t), server.Options{})
	var doc struct {
		Paths map[string]map[string]struct {
			Summary    string `json:"summary"`
			Parameters []struct {
				Name        string `json:"name"`
				In          string `json:"in"`
				Description string `json:"description"`
			} `json:"parameters"`
			Responses map[string]struct {
				Content map[string]struct {
					Schema struct {
						Ref string `json:"$ref"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"responses"`
		} `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(e.do("GET", "/openapi.json", "", nil).body, &doc); err != nil {
		t.Fatal(err)
	}
	op, ok := doc.Paths["/v1/desks/{desk}/search"]["get"]
	if !ok {
		t.Fatal("no GET /v1/desks/{desk}/search in the document")
	}
	params := map[string]string{}
	for _, p := range op.Parameters {
		params[p.In+" "+p.Name] = p.Description
	}
	for name, says := range map[string]string{"path desk": "desk", "query q": "all of them", "query thread": "replies",
		"query before": "next", "query limit": "100", "query as": "Operator tokens only"} {
		if !strings.Contains(params[name], says) {
			t.Errorf("parameter %s: %q, want it to say %q", name, params[name], says)
		}
	}
	for _, status := range []string{"200", "400", "401", "403", "404", "429", "501", "503"} {
		if _, ok := op.Responses[status]; !ok {
			t.Errorf("status %s is not documented", status)
		}
	}
	ref := op.Responses["200"].Content["application/json"].Schema.Ref
	schema := doc.Components.Schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
	if schema.Properties["messages"] == nil || schema.Properties["next"] == nil || !slices.Contains(schema.Required, "next") {
		t.Errorf("the answer's schema %s: %+v", ref, schema)
	}
}

// TestSearchThreadFirst: a thread the participant may not read, or that does not exist, is
// refused before the store searches any of it, so that how long the refusal takes cannot
// tell an aside's thread from a missing one; bad words are refused before either.
func TestSearchThreadFirst(t *testing.T) {
	st := countingSearch{sqliteStore(t), new(atomic.Int32)}
	f := newFixture(t, st, server.Options{Rate: rate.Inf})
	for _, c := range []struct {
		path   string
		status int
		kind   string
	}{
		{searchPath("launch", fmt.Sprintf("thread=%d", f.aside.Seq)), 404, "not-found"},
		{searchPath("launch", "thread=99"), 404, "not-found"},
		{searchPath("", fmt.Sprintf("thread=%d", f.aside.Seq)), 400, "invalid-request"},
	} {
		wantProblem(t, f.env.do("GET", c.path, f.coder, nil), c.status, c.kind)
		if n := st.searches.Load(); n != 0 {
			t.Fatalf("%s: the store searched %d times before the refusal", c.path, n)
		}
	}
	f.env.searchFor(t, f.coder, "yes", fmt.Sprintf("thread=%d", f.root.Seq))
	if n := st.searches.Load(); n != 1 {
		t.Fatalf("a search in a readable thread: the store searched %d times, want 1", n)
	}
}
