package digest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

// An OpenAI digester works against any server that speaks Chat Completions: here a local
// stand-in for a vLLM or Ollama server, which answers every request with one digest.
func ExampleNewOpenAI() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"1","object":"chat.completion","created":1,"model":"llama3.2","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"Ana (person:ana) asked why deploy #41 is red; Triage (agent:triage) found the migration timed out."}}]}`)
	}))
	defer srv.Close()

	d, err := digest.NewOpenAI(digest.OpenAIOptions{Model: "llama3.2", BaseURL: srv.URL + "/v1", APIKey: "unused"})
	if err != nil {
		fmt.Println(err)
		return
	}
	text, err := d.Digest(context.Background(), digest.Request{
		Conversation: transcript.Conversation{Desk: "ops"},
		Messages: []transcript.Message{
			{Seq: 1, Author: transcript.Person("ana", "Ana"), Content: "Why is deploy #41 red?"},
			{Seq: 2, Parent: 1, Author: transcript.Agent("triage", "Triage"), Content: "The migration timed out."},
		},
		Budget: 4000,
	})
	fmt.Println(d.Name())
	fmt.Println(text, err)
	// Output:
	// openai:llama3.2
	// Ana (person:ana) asked why deploy #41 is red; Triage (agent:triage) found the migration timed out. <nil>
}
