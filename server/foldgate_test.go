package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server"
)

// hangingEndpoint is a local OpenAI-compatible endpoint that never answers a request for
// which hang says so (until the request ends: the client gave up, or the endpoint
// closed), and answers every other with a short digest. It counts the requests it took.
type hangingEndpoint struct {
	*httptest.Server
	hang           func(n int64, body string) bool // n: the request's number, from 1
	requests, hung atomic.Int64
}

func newHangingEndpoint(t *testing.T, hang func(n int64, body string) bool) *hangingEndpoint {
	t.Helper()
	h := &hangingEndpoint{hang: hang}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body) // read whole, the request's end is heard: its context ends
		n := h.requests.Add(1)
		if h.hang(n, string(b)) {
			h.hung.Add(1)
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"a digest"}}]}`)
	}))
	t.Cleanup(h.Close) // after the server's close
	return h
}

// overlapCounter is the Digester it wraps, counting the most of its calls that ran at once.
type overlapCounter struct {
	*digest.OpenAI
	inFlight, atOnce atomic.Int64
}

func (c *overlapCounter) Digest(ctx context.Context, r digest.Request) (string, error) {
	now := c.inFlight.Add(1)
	defer c.inFlight.Add(-1)
	for most := c.atOnce.Load(); now > most && !c.atOnce.CompareAndSwap(most, now); most = c.atOnce.Load() {
	}
	return c.OpenAI.Digest(ctx, r)
}

// hangsOn is a hang that holds every request whose rows hold word.
func hangsOn(word string) func(int64, string) bool {
	return func(_ int64, body string) bool { return strings.Contains(body, word) }
}

// hangingDigester is a Digester that, for rows holding HANGME, waits until its context
// ends, and writes the extractive digest of any other.
type hangingDigester struct{ hung atomic.Int64 }

func (d *hangingDigester) Digest(ctx context.Context, r digest.Request) (string, error) {
	for _, m := range r.Messages {
		if strings.Contains(m.Content, "HANGME") {
			d.hung.Add(1)
			<-ctx.Done()
			return "", ctx.Err()
		}
	}
	return digest.Extractive{}.Digest(ctx, r)
}

// TestHungDigesterLeavesOtherDesksFolding: folds whose digester never answers (an endpoint
// that takes the request and says nothing, a custom Digester that waits for its context)
// end at their timeout, so they hold none of the server's folding goroutines for good:
// another desk's digest is folded after them.
func TestHungDigesterLeavesOtherDesksFolding(t *testing.T) {
	t.Run("openai", func(t *testing.T) {
		endpoint := newHangingEndpoint(t, hangsOn("HANGME"))
		d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: "m", BaseURL: endpoint.URL, MaxRetries: -1, Timeout: 200 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		foldBesideHungFolds(t, server.Options{Digester: d}, endpoint.hung.Load)
	})
	t.Run("custom digester", func(t *testing.T) {
		d := &hangingDigester{}
		foldBesideHungFolds(t, server.Options{Digester: d, DigestTimeout: 200 * time.Millisecond}, d.hung.Load)
	})
}

// foldBesideHungFolds posts rows whose folds hang to two desks, as many as the server
// folds at once, waits until both folds hang, then wants desk eng's digest folded.
func foldBesideHungFolds(t *testing.T, o server.Options, hung func() int64) {
	o.DigestPolicy, o.Rate = smallPolicy, rate.Inf
	e := newEnv(t, newMemDigestStore(), o)
	for _, desk := range []string{"stuck1", "stuck2"} {
		tok := e.token(desk, coder)
		for i := range 6 {
			if r := e.do("POST", "/v1/desks/"+desk+"/messages", tok, map[string]any{"content": fmt.Sprintf("HANGME %d", i)}); r.status != 201 {
				t.Fatalf("post: %d %s", r.status, r.body)
			}
		}
	}
	for deadline := time.Now().Add(30 * time.Second); hung() < 2 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if hung() < 2 {
		t.Fatalf("%d folds hung, want 2", hung())
	}
	coderTok := e.token("eng", coder)
	var rows []transcript.Message
	for i := range 6 {
		rows = append(rows, e.post(coderTok, map[string]any{"content": fmt.Sprintf("root %d", i)}))
	}
	waitDigest(t, e, "/v1/desks/eng/view?digest=true&window=2", coderTok, rows[3].Seq)
}

// TestTimedOutFoldKeepsDigest: a background fold whose endpoint does not answer within the
// digester's timeout leaves the held digest, and is logged once, saying so, without a
// row's words; failing again the same way it is not logged again, and once the endpoint
// answers the next fold stores the next generation.
func TestTimedOutFoldKeepsDigest(t *testing.T) {
	var hanging atomic.Bool
	endpoint := newHangingEndpoint(t, func(int64, string) bool { return hanging.Load() })
	d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: "m", BaseURL: endpoint.URL, MaxRetries: -1, Timeout: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, newMemDigestStore(), server.Options{Digester: d, DigestPolicy: smallPolicy, Rate: rate.Inf})
	coderTok := e.token("eng", coder)
	const path = "/v1/desks/eng/view?digest=true&window=2"
	var rows []transcript.Message
	post := func(n int) {
		for range n {
			rows = append(rows, e.post(coderTok, map[string]any{"content": fmt.Sprintf("WORD%d", len(rows))}))
		}
	}
	post(6)
	held := waitDigest(t, e, path, coderTok, rows[3].Seq).Digest

	hanging.Store(true)
	post(4) // 6 rows above the held digest: a fold is due, and hangs
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(e.log.String(), "background fold failed") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	logged := e.log.String()
	if !strings.Contains(logged, "background fold failed") || !strings.Contains(logged, "no answer within 200ms") {
		t.Fatalf("no fold that timed out was logged:\n%s", logged)
	}
	if v := decode[digestView](t, e.do("GET", path, coderTok, nil), 200); v.Digest == nil || *v.Digest != *held {
		t.Errorf("after a fold that timed out the digest is %+v, want the one held, %+v", v.Digest, *held)
	}

	asked := endpoint.hung.Load()
	post(1) // the fold is due again, and hangs again
	for deadline := time.Now().Add(30 * time.Second); endpoint.hung.Load() == asked && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if endpoint.hung.Load() == asked {
		t.Fatal("no fold asked the endpoint again")
	}
	hanging.Store(false)
	post(1) // the fold after the one that hangs (one fold of the conversation at a time) stores
	waitDigest(t, e, path, coderTok, rows[len(rows)-3].Seq)

	logged = e.log.String()
	if n := strings.Count(logged, "background fold failed"); n != 1 {
		t.Errorf("%d failed folds logged, want 1:\n%s", n, logged)
	}
	if strings.Contains(logged, "WORD") {
		t.Errorf("the log holds a row's words:\n%s", logged)
	}
}

// TestFoldRouteTakesTheConversationsTurn: POST …/digest folds in the conversation's turn,
// the one the background folds take: of requests at once, one asks the endpoint at a
// time. The first fold's request hangs until the server's digest timeout, and the request
// answers that the fold was refused, saying so; the next one folds and stores; the last
// two find nothing due, ask nothing, and answer the stored digest.
func TestFoldRouteTakesTheConversationsTurn(t *testing.T) {
	endpoint := newHangingEndpoint(t, func(n int64, _ string) bool { return n == 1 })
	d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: "m", BaseURL: endpoint.URL, MaxRetries: -1})
	if err != nil {
		t.Fatal(err)
	}
	st := newMemDigestStore()
	calls := &overlapCounter{OpenAI: d}
	e := newEnv(t, st, server.Options{Digester: calls, DigestPolicy: smallPolicy, DigestTimeout: time.Second, Rate: rate.Inf})
	op := e.token("eng", operator)
	for i := range 6 { // written to the store directly: no background fold runs
		if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: coder, Content: fmt.Sprintf("row %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	const posts = 4
	done := make(chan response, posts)
	for range posts {
		go func() { done <- e.do("POST", "/v1/desks/eng/digest", op, nil) }()
	}
	var stored, refused, unchanged int
	for range posts {
		a := decode[server.DigestAnswer](t, <-done, 200)
		switch {
		case a.Folded && a.Digest != nil && a.Digest.Generation == 1:
			stored++
		case strings.Contains(a.Refused, "no answer within 1s"):
			refused++
		case !a.Folded && a.Refused == "" && a.Digest != nil && a.Digest.Generation == 1:
			unchanged++
		default:
			t.Errorf("an answer %+v", a)
		}
	}
	if n := calls.atOnce.Load(); n != 1 { // the endpoint hears a request end only later
		t.Errorf("%d folds of the same conversation asked the digester at once, want 1", n)
	}
	if n := endpoint.requests.Load(); n != 2 || stored != 1 || refused != 1 || unchanged != 2 {
		t.Errorf("%d requests to the endpoint; %d answers stored, %d refused, %d unchanged: want 2; 1, 1, 2", n, stored, refused, unchanged)
	}
}
