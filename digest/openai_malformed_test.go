package digest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

// TestOpenAIErrorOfMalformedAnswer: an endpoint that answers 200 with a body that is
// not a chat completion (a proxy's page, an echo of the request) is an error, which serve
// logs and POST …/digest answers in "refused": it holds neither a row's words nor the key.
func TestOpenAIErrorOfMalformedAnswer(t *testing.T) {
	const words = "WALRUS-ROW-WORDS"
	for name, answer := range map[string]func(http.ResponseWriter, *http.Request){
		"text/plain echo": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			w.Write([]byte("echo " + words + " " + r.Header.Get("Authorization")))
		},
		"json not an object": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`"echo ` + words + ` ` + r.Header.Get("Authorization") + `"`))
		},
		"json broken": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices": [{"message": {"content": ` + words + r.Header.Get("Authorization") + `}}]`))
		},
		"choices wrong type": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"choices": "` + words + ` ` + r.Header.Get("Authorization") + `"}`))
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newOpenAIFake(t, answer)
			d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: "m", BaseURL: f.srv.URL, APIKey: openaiTestKey, MaxRetries: -1})
			if err != nil {
				t.Fatal(err)
			}
			text, err := d.Digest(t.Context(), digest.Request{Conversation: transcript.Conversation{Desk: "eng"}, Budget: 100,
				Messages: []transcript.Message{{Seq: 1, Author: transcript.Author{Kind: transcript.KindPerson, ID: "ana"}, Content: words}}})
			t.Logf("text=%q err=%v", text, err)
			if err == nil {
				t.Fatalf("an answer that is no chat completion gave the digest %q, want an error", text)
			}
			if strings.Contains(err.Error(), words) || strings.Contains(err.Error(), openaiTestKey) {
				t.Errorf("the error holds a row's words or the key: %v", err)
			}
		})
	}
}
