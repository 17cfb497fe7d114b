package server_test

import (
	"context"
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
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "desk.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()

	// transcript token add --desk eng --as agent:triage:Triage
	secret, t, _ := token.New("eng", transcript.Agent("triage", "Triage"), time.Now())
	if err := st.AddToken(ctx, t); err != nil {
		fmt.Println(err)
		return
	}

	srv, err := server.New(st, server.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(srv) // transcript serve: srv.HTTPServer(server.DefaultAddr)
	defer ts.Close()
	defer srv.Shutdown(ctx)

	at := regexp.MustCompile(`"at":"[^"]*",`) // when the row was stored: it varies
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
		fmt.Println(res.StatusCode, at.ReplaceAllString(strings.TrimSpace(string(b)), ""))
	}
	call("POST", "/v1/desks/eng/messages", `{"content":"build is green","key":"build-1"}`)
	call("POST", "/v1/desks/eng/messages", `{"content":"build is green","author":{"type":"operator"}}`)
	call("GET", "/v1/desks/eng/threads", "")
	call("GET", "/v1/desks/ops/view", "")
	// Output:
	// 201 {"seq":1,"author":{"type":"agent","id":"triage","label":"Triage"},"content":"build is green","key":"build-1"}
	// 400 {"type":"tag:sharedesk.dev,2025:problem:invalid-request","title":"Invalid request","status":400,"detail":"a body may not name an author: the author is the token's participant","errors":[{"message":"unexpected property","location":"body.author"}]}
	// 200 {"threads":[],"head":1,"partial":false,"scanned":1,"reads":0}
	// 404 {"type":"tag:sharedesk.dev,2025:problem:not-found","title":"Not found","status":404,"detail":"no such desk"}
}
