package server_test

import (
	"bytes"
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

// An agent posts to a desk and reads its view over HTTP, with the token the operator made
// for it.
func Example() {
	call, done, err := exampleServer(transcript.Agent("triage", "Triage"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	show := func(method, path, body string) {
		status, b := call(method, path, body)
		fmt.Println(status, storedAt.ReplaceAllString(string(b), ""))
	}
	show("POST", "/v1/desks/eng/messages", `{"content":"build is green","key":"build-1"}`)
	show("POST", "/v1/desks/eng/messages", `{"content":"build is green","author":{"type":"operator"}}`)
	show("GET", "/v1/desks/eng/threads", "")
	show("GET", "/v1/desks/ops/view", "")
	// Output:
	// 201 {"seq":1,"author":{"type":"agent","id":"triage","label":"Triage"},"content":"build is green","key":"build-1"}
	// 400 {"type":"tag:sharedesk.dev,2025:problem:invalid-request","title":"Invalid request","status":400,"detail":"a body may not name an author: the author is the token's participant","errors":[{"message":"unexpected property","location":"body.author"}]}
	// 200 {"threads":[],"head":1,"partial":false,"scanned":1,"reads":0}
	// 404 {"type":"tag:sharedesk.dev,2025:problem:not-found","title":"Not found","status":404,"detail":"no such desk: this token is for desk \"eng\""}
}

// A bot updates its notice with an edit, then erases it with a redaction; every read
// afterwards shows the row as corrected, and a row may be redacted once.
func Example_corrections() {
	call, done, err := exampleServer(transcript.Agent("ci", "CI"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer done()
	show := func(method, path, body string) {
		status, b := call(method, path, body)
		if method == "GET" { // a view: its messages
			var p transcript.Projection
			json.Unmarshal(b, &p)
			b, _ = json.Marshal(p.Messages)
		}
		fmt.Println(status, storedAt.ReplaceAllString(string(b), ""))
	}
	show("POST", "/v1/desks/eng/messages", `{"content":"build running"}`)
	show("PATCH", "/v1/desks/eng/messages/1", `{"content":"build green"}`)
	show("GET", "/v1/desks/eng/view", "")
	show("DELETE", "/v1/desks/eng/messages/1", "")
	show("GET", "/v1/desks/eng/view", "")
	show("DELETE", "/v1/desks/eng/messages/1", "")
	// Output:
	// 201 {"seq":1,"author":{"type":"agent","id":"ci","label":"CI"},"content":"build running"}
	// 201 {"seq":2,"author":{"type":"agent","id":"ci","label":"CI"},"content":"build green","corrects":1}
	// 200 [{"seq":1,"author":{"type":"agent","id":"ci","label":"CI"},"content":"build green","revised":2}]
	// 201 {"seq":3,"author":{"type":"agent","id":"ci","label":"CI"},"content":"","corrects":1,"redacted":true}
	// 200 [{"seq":1,"author":{"type":"agent","id":"ci","label":"CI"},"content":"","redacted":true,"revised":3}]
	// 409 {"type":"tag:sharedesk.dev,2025:problem:redacted","title":"The row was redacted","status":409,"detail":"message 1 was redacted: it can no longer be corrected"}
}

// storedAt is a row's time of storing in an answer: it varies.
var storedAt = regexp.MustCompile(`,"at":"[^"]*"`)

// exampleServer serves a new desk eng over HTTP for the examples, with a token for who
// (transcript token add --desk eng --as ...), and returns a call that sends a request with
// it and answers the status and the trimmed body, and done, which stops it all.
func exampleServer(who transcript.Author) (call func(method, path, body string) (int, []byte), done func(), err error) {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		return nil, nil, err
	}
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "desk.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	secret, t, _ := token.New("eng", who, time.Now())
	srv, err := server.New(st, server.Options{})
	if err == nil {
		err = st.AddToken(ctx, t)
	}
	if err != nil {
		st.Close()
		os.RemoveAll(dir)
		return nil, nil, err
	}
	ts := httptest.NewServer(srv) // transcript serve: srv.HTTPServer(server.DefaultAddr)
	call = func(method, path, body string) (int, []byte) {
		req, _ := http.NewRequest(method, ts.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, []byte(err.Error())
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, bytes.TrimSpace(b)
	}
	done = func() {
		srv.Shutdown(ctx)
		ts.Close()
		st.Close()
		os.RemoveAll(dir)
	}
	return call, done, nil
}
