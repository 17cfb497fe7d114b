package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/token"
)

// TestMessageTextIsNeverTakenForAStatusLine: a message whose text holds the status lines and
// headers of the errors net/http writes itself reaches its readers as written: behind
// Serve, a write of a response body that happens to begin with those bytes (its padding
// varied) is never taken for net/http's error and answered as a problem.
func TestMessageTextIsNeverTakenForAStatusLine(t *testing.T) {
	st := sqliteStore(t)
	addr := serveOnLoopback(t, st)
	base := "http://" + addr
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	do := func(method, path, secret string, body []byte) (int, []byte, error) {
		req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+secret)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		res, err := client.Do(req)
		if err != nil {
			return 0, nil, err
		}
		defer res.Body.Close()
		b, err := io.ReadAll(res.Body)
		return res.StatusCode, b, err
	}
	ana := transcript.Person("ana", "Ana")
	bad := 0
	for k := range 13 {
		desk := fmt.Sprintf("d%d", k)
		secret, tok, err := token.New(desk, ana, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := st.AddToken(t.Context(), tok); err != nil {
			t.Fatal(err)
		}
		// Every padding of 0 to 12 bytes: some write of the answer begins with the status line.
		content := strings.Repeat("x", k) + strings.Repeat("HTTP/1.1 417 ", 900)
		body, _ := json.Marshal(map[string]any{"content": content})
		if code, b, err := do("POST", "/v1/desks/"+desk+"/messages", secret, body); err != nil || code != 201 {
			bad++
			t.Errorf("padding %d: POST: %d, err %v, answer holds a problem: %v", k, code, err, bytes.Contains(b, []byte(server.ProblemTypeBase)))
			continue
		}
		code, b, err := do("GET", "/v1/desks/"+desk+"/view", secret, nil)
		var v struct{ Messages []transcript.Message }
		if err != nil || code != 200 || json.Unmarshal(b, &v) != nil || len(v.Messages) != 1 || v.Messages[0].Content != content {
			bad++
			t.Errorf("padding %d: GET view: %d, err %v, holds a problem: %v", k, code, err, bytes.Contains(b, []byte(server.ProblemTypeBase)))
		}
	}
	t.Logf("%d of 13 views corrupted", bad)
}
