package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

// A bot updates its notice with an edit, then erases it with a redaction; every read
// afterwards shows the row as corrected, and a row may be redacted once.
func Example_corrections() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "desk.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	secret, t, _ := token.New("eng", transcript.Agent("ci", "CI"), time.Now())
	if err := st.AddToken(ctx, t); err != nil {
		fmt.Println(err)
		return
	}
	srv, err := server.New(st, server.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Shutdown(ctx)

	at := regexp.MustCompile(`,"at":"[^"]*"`) // when the row was stored: it varies
	call := func(method, path, body string) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if method == "GET" { // a view: its messages
			var p transcript.Projection
			json.Unmarshal(b, &p)
			b, _ = json.Marshal(p.Messages)
		}
		fmt.Println(res.StatusCode, at.ReplaceAllString(strings.TrimSpace(string(b)), ""))
	}
	call("POST", "/v1/desks/eng/messages", `{"content":"build running"}`)
	call("PATCH", "/v1/desks/eng/messages/1", `{"content":"build green"}`)
	call("GET", "/v1/desks/eng/view", "")
	call("DELETE", "/v1/desks/eng/messages/1", "")
	call("GET", "/v1/desks/eng/view", "")
	call("DELETE", "/v1/desks/eng/messages/1", "")
	// Output:
	// 201 {"seq":1,"author":{"type":"agent","id":"ci","label":"CI"},"content":"build running"}
	// 201 {"seq":2,"author":{"type":"agent","id":"ci","label":"CI"},"content":"build green","corrects":1}
	// 200 [{"seq":1,"author":{"type":"agent","id":"ci","label":"CI"},"content":"build green","revised":2}]
	// 201 {"seq":3,"author":{"type":"agent","id":"ci","label":"CI"},"content":"","corrects":1,"redacted":true}
	// 200 [{"seq":1,"author":{"type":"agent","id":"ci","label":"CI"},"content":"","redacted":true,"revised":3}]
	// 409 {"type":"tag:sharedesk.dev,2025:problem:redacted","title":"The row was redacted","status":409,"detail":"message 1 was redacted: it can no longer be corrected"}
}
