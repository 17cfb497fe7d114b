package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/memdesks"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// memDigestStore is a server.Store of memlog desks, whose logs keep digests (digest.Store),
// with its tokens in memory.
type memDigestStore struct {
	memdesks.Desks
	token.MemStore
}

func newMemDigestStore() *memDigestStore { return &memDigestStore{} }

// eachDigestStore runs f as a subtest on memlog desks and on each store of eachStore.
func eachDigestStore(t *testing.T, f func(t *testing.T, st server.Store)) {
	t.Run("memlog", func(t *testing.T) { f(t, newMemDigestStore()) })
	eachStore(t, f)
}

// smallPolicy folds early: once 6 qualifying rows are above the held digest, all but the
// newest 2. A test that posts 6 rows in a burst gets one fold of its first 4, however the
// background folds interleave with the posts: before the 6th, none is due.
var smallPolicy = digest.Policy{KeepLive: 2, FoldAfter: 4}

// digestView is the part of a view's answer about its digest.
type digestView struct {
	Messages []transcript.Message `json:"messages"`
	Digest   *transcript.Digest   `json:"digest"`
	Rendered *struct {
		Digest string `json:"digest"`
	} `json:"rendered"`
}

// waitDigest reads path until its answer carries a digest through at least through, and
// returns it; it fails after 30 s, with the server's log.
func waitDigest(t *testing.T, e *env, path, secret string, through transcript.Sequence) digestView {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		v := decode[digestView](t, e.do("GET", path, secret, nil), 200)
		if v.Digest != nil && v.Digest.Through >= through {
			return v
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("GET %s: no digest through %d came within 30 s; the server's log:\n%s", path, through, e.log.String())
	return digestView{}
}

// TestBackgroundDigest: with a Digester, appends through the service fold the channel and
// the thread in the background, and view?digest=true carries the digest (its tag first in
// rendered): folded only from rows every participant may read, never the aside's.
func TestBackgroundDigest(t *testing.T) {
	eachDigestStore(t, testBackgroundDigest)
}

func testBackgroundDigest(t *testing.T, st server.Store) {
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coder := e.token("eng", operator), e.token("eng", coder)
	e.post(op, map[string]any{"content": "ASIDEWORD secret plans", "audience": []string{"agent:triage"}})
	var roots []transcript.Message
	for i := range 6 {
		roots = append(roots, e.post(coder, map[string]any{"content": fmt.Sprintf("root number %d", i)}))
	}
	// The channel: 6 qualifying roots, all but the newest 2 folded.
	v := waitDigest(t, e, "/v1/desks/eng/view?digest=true&window=2&rendered=true", coder, roots[3].Seq)
	if v.Digest.Through != roots[3].Seq || v.Digest.Rows != 4 || v.Digest.Digester != "extractive" || v.Digest.Conversation != (transcript.Conversation{Desk: "eng"}) {
		t.Errorf("digest %+v, want through %d, 4 rows, by extractive", *v.Digest, roots[3].Seq)
	}
	if !strings.Contains(v.Digest.Text, "root number 0") || strings.Contains(v.Digest.Text, "ASIDEWORD") {
		t.Errorf("digest text %q: want the first root's words, never the aside's", v.Digest.Text)
	}
	if v.Rendered == nil || !strings.HasPrefix(v.Rendered.Digest, "<digest ") || !strings.Contains(v.Rendered.Digest, "root number 0") {
		t.Errorf("rendered %+v: want the digest's tag", v.Rendered)
	}
	// Without digest=true, none.
	if got := decode[digestView](t, e.do("GET", "/v1/desks/eng/view?window=2", coder, nil), 200); got.Digest != nil {
		t.Errorf("view without digest=true carries %+v", *got.Digest)
	}
	// A thread: replies fold into the thread's digest.
	root := roots[0]
	var replies []transcript.Message
	for i := range 6 {
		replies = append(replies, e.post(coder, map[string]any{"content": fmt.Sprintf("reply %d", i), "parent": root.Seq}))
	}
	tv := waitDigest(t, e, fmt.Sprintf("/v1/desks/eng/view?digest=true&window=2&thread=%d", root.Seq), op, replies[3].Seq) // 6 replies: all but the newest 2 folded
	if tv.Digest.Conversation.Thread != root.Seq || tv.Digest.Through != replies[3].Seq || tv.Digest.Rows != 4 || !strings.Contains(tv.Digest.Text, "reply 0") {
		t.Errorf("thread digest %+v", *tv.Digest)
	}
}

// TestFoldDigestRoute: POST …/digest folds now for an operator; any other token is 403, a
// thread that is not a root 400, one that does not exist 404, and a server without a
// digester 501.
func TestFoldDigestRoute(t *testing.T) {
	st := newMemDigestStore()
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coderTok := e.token("eng", operator), e.token("eng", coder)
	wantProblem(t, e.do("POST", "/v1/desks/eng/digest", op, nil), 404, "not-found") // no row yet
	var rows []transcript.Message
	for i := range 5 {
		// Written to the store directly: no background fold runs.
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("row %d", i)})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	reply, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: "a reply", Parent: rows[0].Seq})
	if err != nil {
		t.Fatal(err)
	}

	got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), 200)
	if !got.Folded || got.Digest == nil || got.Digest.Generation != 1 || got.Digest.Through != rows[3].Seq { // the 6 qualifying rows (the reply is the first) but the newest 2
		t.Fatalf("fold: %+v, want generation 1 through %d", got, rows[3].Seq)
	}
	again := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), 200)
	if again.Folded || again.Digest == nil || again.Digest.Generation != 1 || again.Refused != "" {
		t.Errorf("second fold with nothing due: %+v, want the held generation 1, not folded", again)
	}
	thread := decode[server.DigestAnswer](t, e.do("POST", fmt.Sprintf("/v1/desks/eng/digest?thread=%d", rows[0].Seq), op, nil), 200)
	if thread.Folded || thread.Digest != nil {
		t.Errorf("a thread with one reply: %+v, want no digest", thread)
	}

	if p := wantProblem(t, e.do("POST", "/v1/desks/eng/digest", coderTok, nil), 403, "forbidden"); p.Detail != "only an operator token may fold digests" {
		t.Errorf("a participant's fold: %q, want it to say only an operator token may fold digests", p.Detail)
	}
	wantProblem(t, e.do("POST", fmt.Sprintf("/v1/desks/eng/digest?thread=%d", reply.Seq), op, nil), 400, "invalid-request")
	wantProblem(t, e.do("POST", "/v1/desks/eng/digest?thread=999", op, nil), 404, "not-found")

	none := newEnv(t, newMemDigestStore(), server.Options{})
	wantProblem(t, none.do("POST", "/v1/desks/eng/digest", none.token("eng", operator), nil), 501, "not-implemented")
}

// TestFoldRouteAfterRedaction: a redaction answered while POST …/digest's digester runs
// deletes the digest the fold read first (it stands for the redacted row); the route's
// answer, which comes after the redaction's, never carries it, nor the erased word.
func TestFoldRouteAfterRedaction(t *testing.T) {
	st := newMemDigestStore()
	g := &gatedDigester{running: make(chan struct{}), release: make(chan struct{})}
	e := newEnv(t, st, server.Options{Digester: g, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coderTok := e.token("eng", operator), e.token("eng", coder)
	var first transcript.Message
	for i := range 6 {
		// Written to the store directly: no background fold runs.
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("row %d, erasable%d", i, i)})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = m
		}
	}
	if got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), 200); !got.Folded || !strings.Contains(got.Digest.Text, "erasable0") {
		t.Fatalf("first fold: %+v; want the first rows folded", got)
	}
	for i := range 4 {
		if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("later %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	answer := make(chan response, 1)
	go func() { answer <- e.do("POST", "/v1/desks/eng/digest", op, nil) }()
	<-g.running // the second fold's digester runs
	if r := e.do("DELETE", fmt.Sprintf("/v1/desks/eng/messages/%d", first.Seq), coderTok, nil); r.status != http.StatusCreated {
		t.Fatalf("redact: %d %s", r.status, r.body)
	}
	close(g.release)
	r := <-answer
	got := decode[server.DigestAnswer](t, r, 200)
	if got.Folded || got.Digest != nil || !strings.Contains(got.Refused, "superseded") || strings.Contains(string(r.body), "erasable0") {
		t.Errorf("the fold answered after the redaction's answer: %s; want no digest, refused as superseded", r.body)
	}
}

// gatedDigester is digest.Extractive whose second call signals running and waits for
// release before it answers.
type gatedDigester struct {
	calls            sync.Mutex
	n                int
	running, release chan struct{}
}

func (g *gatedDigester) Name() string { return "extractive" }

func (g *gatedDigester) Digest(ctx context.Context, r digest.Request) (string, error) {
	g.calls.Lock()
	g.n++
	second := g.n == 2
	g.calls.Unlock()
	if second {
		close(g.running)
		<-g.release
	}
	return digest.Extractive{}.Digest(ctx, r)
}

// TestNewRefusesDigestPolicy: server.New refuses a policy Fold would refuse (a background
// fold under one whose sums overflow would otherwise fail in the folder's goroutine), and
// says which field.
func TestNewRefusesDigestPolicy(t *testing.T) {
	for _, p := range []digest.Policy{{KeepLive: math.MaxInt, FoldAfter: 1}, {InputLimit: -1}, {Budget: 64<<10 + 1}} {
		_, err := server.New(newMemDigestStore(), server.Options{Digester: digest.Extractive{}, DigestPolicy: p})
		if !errors.Is(err, digest.ErrInvalidPolicy) || !strings.HasPrefix(err.Error(), "server: DigestPolicy: digest: invalid policy: ") {
			t.Errorf("New with DigestPolicy %+v: %v; want an invalid policy named", p, err)
		}
	}
}

// TestModelRouteDigest: GET model?digest=true is the view with its digest rendered by
// render.View.ModelInput, byte for byte, the digest's tag the first user turn; without
// digest=true it holds no digest.
func TestModelRouteDigest(t *testing.T) {
	st := newMemDigestStore()
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coderTok := e.token("eng", operator), e.token("eng", coder)
	for i := range 6 {
		// Written to the store directly: no background fold runs.
		if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("FOLDWORD%d <b>", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", op, nil), 200); !got.Folded {
		t.Fatalf("fold: %+v", got)
	}
	for _, tt := range []struct {
		secret, format string
		viewer         transcript.Author
	}{
		{coderTok, "openai", coder},
		{op, "anthropic", operator},
	} {
		view := decode[transcript.Projection](t, e.do("GET", "/v1/desks/eng/view?digest=true&window=2", tt.secret, nil), 200)
		if view.Digest == nil {
			t.Fatalf("view?digest=true for %v: no digest", tt.viewer)
		}
		want, err := render.View{Digest: view.Digest, Messages: view.Messages, Elided: view.Elided}.ModelInput(render.ModelFormat(tt.format), tt.viewer)
		if err != nil {
			t.Fatal(err)
		}
		r := e.do("GET", "/v1/desks/eng/model?digest=true&window=2&format="+tt.format, tt.secret, nil)
		if r.status != 200 || string(r.body) != string(want) {
			t.Errorf("model?digest=true&format=%s: %d\n got %s\nwant %s", tt.format, r.status, r.body, want)
		}
		var turns []struct{ Role, Content any }
		if err := json.Unmarshal(r.body, &turns); err != nil || len(turns) == 0 || turns[0].Role != "user" || !strings.Contains(fmt.Sprint(turns[0].Content), render.DigestTag(*view.Digest)) {
			t.Errorf("model?digest=true&format=%s: the first turn is not the digest's tag: %s", tt.format, r.body)
		}
		without := e.do("GET", "/v1/desks/eng/model?window=2&format="+tt.format, tt.secret, nil)
		if without.status != 200 || strings.Contains(string(without.body), "<digest") {
			t.Errorf("model?format=%s without digest=true: %d %s", tt.format, without.status, without.body)
		}
	}
}

// fakeOpenAI is a local OpenAI-compatible endpoint that records the bodies it is sent and
// answers each with a digest quoting every ERASEME word of the request.
type fakeOpenAI struct {
	mu     sync.Mutex
	bodies []string
	status int // answered instead of a digest when not 0
}

func (f *fakeOpenAI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	status := f.status
	f.mu.Unlock()
	if status != 0 {
		http.Error(w, `{"error":{"message":"refused"}}`, status)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "c1", "object": "chat.completion", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "talked: " + strings.Join(eraseWords.FindAllString(string(b), -1), " ")}}},
	})
}

var eraseWords = regexp.MustCompile(`ERASEME[0-9]+`)

func (f *fakeOpenAI) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// TestBackgroundDigestOpenAI: the background folds ask an OpenAI-compatible endpoint (a
// local fake); its request holds the folded rows with their authors and never an aside's
// words; a failing endpoint is logged without the key; and after a redaction of a folded
// row no view carries a digest holding its words.
func TestBackgroundDigestOpenAI(t *testing.T) {
	eachDigestStore(t, testBackgroundDigestOpenAI)
}

func testBackgroundDigestOpenAI(t *testing.T, st server.Store) {
	fake := &fakeOpenAI{}
	ts := httptest.NewServer(fake)
	defer ts.Close()
	const key = "sk-test-KEYVALUE"
	d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: "m", BaseURL: ts.URL, APIKey: key, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, st, server.Options{Digester: d, DigestPolicy: smallPolicy, Rate: rate.Inf})
	op, coder := e.token("eng", operator), e.token("eng", coder)
	var roots []transcript.Message
	for i := range 6 {
		if i == 1 {
			e.post(op, map[string]any{"content": "ASIDEWORD only for triage", "audience": []string{"agent:triage"}})
		}
		roots = append(roots, e.post(coder, map[string]any{"content": fmt.Sprintf("ERASEME%d root", i)}))
	}
	v := waitDigest(t, e, "/v1/desks/eng/view?digest=true&window=2", coder, roots[3].Seq)
	if v.Digest.Digester != "openai:m" || v.Digest.Text != "talked: ERASEME0 ERASEME1 ERASEME2 ERASEME3" {
		t.Errorf("digest %+v", *v.Digest)
	}
	reqs := fake.requests()
	if len(reqs) == 0 {
		t.Fatal("the fake endpoint got no request")
	}
	for _, body := range reqs {
		if strings.Contains(body, "ASIDEWORD") || strings.Contains(body, key) {
			t.Errorf("a request to the endpoint holds the aside's words or the key: %s", body)
		}
	}
	if !strings.Contains(reqs[0], "ERASEME0 root") || !strings.Contains(reqs[0], "coder") {
		t.Errorf("the first request lacks the first row or its author: %s", reqs[0])
	}

	// A redaction of a folded row: after its answer no view, with any window, carries a
	// digest holding its words.
	redacted := e.do("DELETE", fmt.Sprintf("/v1/desks/eng/messages/%d", roots[0].Seq), coder, nil)
	if redacted.status != 201 {
		t.Fatalf("redact: %d %s", redacted.status, redacted.body)
	}
	for _, path := range []string{"/v1/desks/eng/view?digest=true&window=2", "/v1/desks/eng/view?digest=true&window=1&rendered=true", "/v1/desks/eng/view?digest=true"} {
		if r := e.do("GET", path, op, nil); r.status != 200 || strings.Contains(string(r.body), "ERASEME0") {
			t.Errorf("after the redaction GET %s: %d %s", path, r.status, r.body)
		}
	}

	// A failing endpoint: the fold is logged, without the key.
	fake.mu.Lock()
	fake.status = http.StatusUnauthorized
	fake.mu.Unlock()
	for i := range 4 {
		e.post(coder, map[string]any{"content": fmt.Sprintf("more %d", i)})
	}
	for range 500 {
		if strings.Contains(e.log.String(), "background fold failed") {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(e.log.String(), "background fold failed") {
		t.Fatalf("no failed fold logged: %s", e.log.String())
	}
	// Failing again the same way, it is not logged again.
	asked := len(fake.requests())
	for i := range 2 {
		e.post(coder, map[string]any{"content": fmt.Sprintf("still more %d", i)})
	}
	for i := 0; i < 500 && len(fake.requests()) == asked; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if len(fake.requests()) == asked {
		t.Fatal("no fold asked the endpoint again")
	}
	logged := e.log.String()
	if n := strings.Count(logged, "background fold failed"); n != 1 {
		t.Errorf("%d failed folds logged, want 1:\n%s", n, logged)
	}
	if strings.Contains(logged, key) || strings.Contains(logged, "ERASEME") || strings.Contains(logged, "more 0") {
		t.Errorf("the log holds the key or a row's words: %s", logged)
	}
}

// TestDeltaDigestCorrected: a state that records the digest of the view it started from
// (its through) gets digest_corrected from the delta route once a folded row is redacted,
// and the view read again no longer carries the erased word; a state without a digest gets
// the delta with the redaction, as before.
func TestDeltaDigestCorrected(t *testing.T) {
	st := newMemDigestStore()
	e := newEnv(t, st, server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	coderTok := e.token("eng", coder)
	var rows []transcript.Message
	for i := range 6 {
		content := fmt.Sprintf("row %d", i)
		if i == 0 {
			content = "OKAPI-SECRET-WORD"
		}
		// Written to the store directly: no background fold runs.
		m, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, m)
	}
	if got := decode[server.DigestAnswer](t, e.do("POST", "/v1/desks/eng/digest", e.token("eng", operator), nil), 200); !got.Folded {
		t.Fatalf("fold: %+v", got)
	}
	type viewWithHead struct {
		digestView
		Head transcript.Sequence `json:"head"`
	}
	v := decode[viewWithHead](t, e.do("GET", "/v1/desks/eng/view?digest=true&window=2", coderTok, nil), 200)
	if v.Digest == nil || !strings.Contains(v.Digest.Text, "OKAPI-SECRET-WORD") {
		t.Fatalf("the view's digest %+v: want row 1's word in it", v.Digest)
	}
	state := sharing.Initialized(transcript.Conversation{Desk: "eng"}, v.Head).For(coder).WithDigest(v.Digest)
	undigested := state.WithDigest(nil)
	e.do("DELETE", fmt.Sprintf("/v1/desks/eng/messages/%d", rows[0].Seq), coderTok, nil)

	r := decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", coderTok, map[string]any{"state": state}), 200)
	if r.Reinitialize != "digest_corrected" || r.Delta != nil {
		t.Errorf("the delta of a state holding the digest after a redaction of a folded row: %+v; want digest_corrected", r)
	}
	r = decode[server.DeltaResult](t, e.do("POST", "/v1/desks/eng/delta", coderTok, map[string]any{"state": undigested}), 200)
	if r.Reinitialize != "" || r.Delta == nil || len(r.Delta.Corrections) != 1 || r.Delta.Corrections[0].Corrects != rows[0].Seq {
		t.Errorf("the delta of a state without a digest: %+v; want a delta carrying the redaction", r)
	}
	again := decode[viewWithHead](t, e.do("GET", "/v1/desks/eng/view?digest=true&window=2", coderTok, nil), 200)
	if again.Digest != nil && strings.Contains(again.Digest.Text, "OKAPI-SECRET-WORD") {
		t.Errorf("the view read again carries the erased word: %+v", again.Digest)
	}
}
