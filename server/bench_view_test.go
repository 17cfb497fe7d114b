package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// BenchmarkViewLoopback is issue 11's first target: GET view over loopback HTTP with
// keep-alive within 2× of calling transcript.Project in process and encoding the same
// JSON, on a desk of 100,000 rows (benchFill: the rows of BenchmarkView), on each store.
//
//   - impl=in-process: Project on the store's Log and json.Marshal of the Projection;
//   - impl=http: GET /v1/desks/eng/view with the token of the same viewer, one keep-alive
//     connection, the body read to its end;
//   - impl=http-tokencache: the same, with the store's token lookups remembered
//     (benchTokenCache): what caching them would save;
//   - impl=http-bare: the in-process work (Project, json.Marshal) behind a bare net/http
//     handler on a loopback port, no huma, no token: the floor any service doing this work
//     over loopback HTTP stands on;
//   - impl=paired: each iteration makes one in-process call and one GET, alternating which
//     goes first, and reports the ratio of their summed times as http/in-process, so that
//     both sides see the same load on a shared machine;
//   - impl=paired-tokencache, impl=paired-bare: the same pairing with http-tokencache's
//     server and with http-bare's handler, so that the floor and what a token cache would
//     save are ratios measured alike.
//
// Each also reports cpu-ns/op, the process's CPU time per op: client and server both.
// Before timing, the GET's body is checked to be the in-process JSON, byte for byte, and
// each path runs 100 times.
//
//	go test -run '^$' -bench BenchmarkViewLoopback -benchmem ./server
//	scripts/pgtest.sh go test -run '^$' -bench BenchmarkViewLoopback -benchmem ./server # with PostgreSQL
func BenchmarkViewLoopback(b *testing.B) {
	for _, kind := range benchStoreKinds {
		b.Run("store="+kind.name, func(b *testing.B) {
			st := kind.open(b)
			benchFill(b, st, benchRows)
			viewer := transcript.Agent("a1", "Agent")
			secret := benchToken(b, st, "eng", viewer)
			q := transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}, Viewer: viewer}
			inProcess := func(ctx context.Context) []byte {
				p, err := transcript.Project(ctx, st.Log("eng"), q)
				if err != nil {
					b.Fatal(err)
				}
				if p.Messages == nil {
					p.Messages = []transcript.Message{}
				}
				p.Reads = 0 // the service's answers leave Reads out
				body, err := json.Marshal(p)
				if err != nil {
					b.Fatal(err)
				}
				return body
			}
			plain := benchViewClient(b, newBenchServer(b, st), secret)
			cached := benchViewClient(b, newBenchServer(b, &benchTokenCache{Store: st}), secret)
			bare := benchViewClient(b, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body := inProcess(r.Context())
				w.Header().Set("Content-Type", "application/json")
				w.Write(append(body, '\n'))
			}), secret)
			want := inProcess(context.Background())
			for _, get := range []func() []byte{plain, cached, bare} {
				if got := get(); !bytes.Equal(bytes.TrimSuffix(got, []byte("\n")), want) {
					b.Fatalf("GET view is not the in-process JSON:\n got %s\nwant %s", got, want)
				}
			}
			for range 100 { // warm the store's statement caches and connections, on both sides
				inProcess(context.Background())
				plain()
				cached()
				bare()
			}

			b.Run("impl=in-process", func(b *testing.B) {
				defer benchReportCPU(b)()
				for b.Loop() {
					inProcess(b.Context())
				}
			})
			b.Run("impl=http", func(b *testing.B) {
				defer benchReportCPU(b)()
				for b.Loop() {
					plain()
				}
			})
			b.Run("impl=http-tokencache", func(b *testing.B) {
				defer benchReportCPU(b)()
				for b.Loop() {
					cached()
				}
			})
			b.Run("impl=http-bare", func(b *testing.B) {
				defer benchReportCPU(b)()
				for b.Loop() {
					bare()
				}
			})
			for _, paired := range []struct {
				name string
				get  func() []byte
			}{{"paired", plain}, {"paired-tokencache", cached}, {"paired-bare", bare}} {
				b.Run("impl="+paired.name, func(b *testing.B) {
					var inNs, httpNs time.Duration
					i := 0
					for b.Loop() {
						t0 := time.Now()
						if i%2 == 0 {
							inProcess(b.Context())
							t1 := time.Now()
							paired.get()
							inNs += t1.Sub(t0)
							httpNs += time.Since(t1)
						} else {
							paired.get()
							t1 := time.Now()
							inProcess(b.Context())
							httpNs += t1.Sub(t0)
							inNs += time.Since(t1)
						}
						i++
					}
					b.ReportMetric(float64(httpNs)/float64(inNs), "http/in-process")
					b.ReportMetric(float64(inNs)/float64(b.N), "in-process-ns/op")
					b.ReportMetric(float64(httpNs)/float64(b.N), "http-ns/op")
				})
			}
		})
	}
}

// newBenchServer returns the service over st, without rate limits, shut down when b ends.
func newBenchServer(b *testing.B, st server.Store) *server.Server {
	b.Helper()
	srv, err := server.New(st, server.Options{Rate: rate.Inf})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { srv.Shutdown(context.Background()) })
	return srv
}

// benchViewClient serves h on a loopback port and returns a function that makes one GET
// view with secret, on one keep-alive connection, and returns the body.
func benchViewClient(b *testing.B, h http.Handler, secret string) func() []byte {
	b.Helper()
	return benchGetClient(b, h, secret, "/v1/desks/eng/view")
}

// benchGetClient is benchViewClient for the GET of path.
func benchGetClient(b *testing.B, h http.Handler, secret, path string) func() []byte {
	b.Helper()
	ts := httptest.NewServer(h)
	b.Cleanup(ts.Close)
	client := ts.Client()
	req, err := http.NewRequest("GET", ts.URL+path, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	var body bytes.Buffer
	return func() []byte {
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body.Reset()
		_, err = io.Copy(&body, res.Body)
		res.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		if res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: %s: %s", path, res.Status, body.Bytes())
		}
		return body.Bytes()
	}
}

// benchReportCPU starts counting the process's CPU time; the function it returns, called
// after the benchmark's loop, reports it as cpu-ns/op (nothing where getrusage is missing).
func benchReportCPU(b *testing.B) (report func()) {
	start, ok := benchProcessCPU()
	return func() {
		end, ok2 := benchProcessCPU()
		if ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
