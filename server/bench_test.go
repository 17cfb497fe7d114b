package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
	"github.com/sharedesk/transcript/token"
)

const benchRows = 100_000

// benchDesk is a desk of benchRows rows in a new store: roots, replies, and an aside in
// ten rows.
func benchDesk(b *testing.B) *sqlitestore.Store {
	b.Helper()
	st, err := sqlitestore.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	var batch []transcript.Message
	for i := 1; i <= benchRows; i++ {
		m := transcript.Message{Author: transcript.Agent(fmt.Sprint("a", i%7), "Agent"), Content: fmt.Sprintf("message %d of the benchmark desk, of ordinary length for a chat", i)}
		switch {
		case i%10 == 0:
			m.Audience = []transcript.Author{transcript.Operator()}
		case i%3 == 0 && (i-2)%10 != 0:
			m.Parent = transcript.Sequence(i - 2)
		}
		batch = append(batch, m)
		if len(batch) == 5000 {
			if err := st.AppendBatch(context.Background(), "eng", batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	return st
}

// BenchmarkView compares GET view over loopback HTTP, keep-alive, with calling
// transcript.Project in process and encoding the same JSON, on a desk of 100,000 rows.
//
//	go test -run '^$' -bench BenchmarkView -benchmem ./server
func BenchmarkView(b *testing.B) {
	st := benchDesk(b)
	viewer := transcript.Agent("a1", "Agent")
	b.Run("in-process", func(b *testing.B) {
		for b.Loop() {
			p, err := transcript.Project(b.Context(), st.Log("eng"), transcript.Query{Viewer: viewer})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("http", func(b *testing.B) {
		srv, err := server.New(st, server.Options{Rate: rate.Inf})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Shutdown(context.Background())
		secret, tok, err := token.New("eng", viewer, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if err := st.AddToken(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(srv)
		defer ts.Close()
		client := ts.Client()
		req, _ := http.NewRequest("GET", ts.URL+"/v1/desks/eng/view", nil)
		req.Header.Set("Authorization", "Bearer "+secret)
		for b.Loop() {
			res, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, res.Body); err != nil {
				b.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != 200 {
				b.Fatal(res.Status)
			}
		}
	})
}
