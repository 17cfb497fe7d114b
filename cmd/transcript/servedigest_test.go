package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// fakeChat is a local OpenAI-compatible endpoint: it records each request's body and
// Authorization header and answers with a digest naming how many envelopes it was sent.
type fakeChat struct {
	mu     sync.Mutex
	bodies []string
	auth   []string
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(b))
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "c1", "object": "chat.completion", "created": 1, "model": "local-model",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": fmt.Sprintf("folded %d rows", strings.Count(string(b), "<message "))}}},
	})
}

// TestServeDigestOpenAI: serve --digester openai folds in the background after enough
// appends, asking a local OpenAI-compatible endpoint with the key from OPENAI_API_KEY;
// the view with digest=true then carries the digest. No aside's words reach the endpoint,
// and the key appears in no log line.
func TestServeDigestOpenAI(t *testing.T) {
	const key = "sk-serve-test-KEY"
	t.Setenv("OPENAI_API_KEY", key)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			fake := &fakeChat{}
			endpoint := httptest.NewServer(fake)
			defer endpoint.Close()
			db := b.db(t)
			secret := addTokenInProcess(t, db, "eng", "agent:triage:Triage")
			opSecret := addTokenInProcess(t, db, "eng", "operator")
			srv := startServe(t, db, "--rate", "inf", "--digester", "openai", "--model", "local-model", "--base-url", endpoint.URL)
			triage, op := srv.api(secret), srv.api(opSecret)
			op.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "ASIDEWORD for triage", "audience": []string{"agent:triage"}}, nil)
			for i := range 55 { // the default policy: 30 kept live, 20 more before a fold
				triage.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": fmt.Sprintf("update %d", i)}, nil)
			}
			var view struct {
				Digest *transcript.Digest `json:"digest"`
			}
			for range 1000 {
				triage.want(http.StatusOK, "GET", "/v1/desks/eng/view?digest=true", nil, &view)
				if view.Digest != nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			// The first fold comes after the 50th update or later (appends coalesce): it
			// folds all but the newest 30, between 20 and 25 rows.
			if d := view.Digest; d == nil || d.Digester != "openai:local-model" || d.Rows < 20 || d.Rows > 25 || d.Text != fmt.Sprintf("folded %d rows", d.Rows) {
				t.Fatalf("view's digest %+v, want 20 to 25 rows folded by openai:local-model", view.Digest)
			}
			fake.mu.Lock()
			defer fake.mu.Unlock()
			for i, body := range fake.bodies {
				if strings.Contains(body, "ASIDEWORD") || strings.Contains(body, key) {
					t.Errorf("request %d holds the aside's words or the key:\n%s", i, body)
				}
				if fake.auth[i] != "Bearer "+key {
					t.Errorf("request %d: Authorization %q, want the key from OPENAI_API_KEY", i, fake.auth[i])
				}
			}
			if srv.stop() != 0 || strings.Contains(srv.stderr.String(), key) {
				t.Errorf("serve's exit or log:\n%s", srv.stderr)
			}
		})
	}
}

// TestServeRefusesKeyInClear: serve --digester openai with a key and a plain http base URL
// to a host that is not loopback is a usage error naming the URL's host, never the key,
// before it opens the database or listens.
func TestServeRefusesKeyInClear(t *testing.T) {
	const key = "sk-serve-clear-KEY"
	t.Setenv("OPENAI_API_KEY", key)
	c := newCLI(t, "")
	r := c.run("serve", "--digester", "openai", "--model", "m", "--base-url", "http://digests.example.test/v1?key="+key)
	if want := "--base-url http://digests.example.test is plain http to a host that is not loopback"; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("want exit %d and %q on standard error, got:\n%s", exitUsage, want, r)
	}
	if strings.Contains(r.stderr+r.stdout, key) || strings.Contains(r.stderr, "listening") {
		t.Errorf("serve named the key or listened:\n%s", r)
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
		t.Errorf("a refused serve left files: %v", entries)
	}
}
