package server_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server"
)

// BenchmarkViewDigest: a view with its digest against the same view without it, on a desk
// of 20,000 rows (benchFill) whose channel holds a digest, on each store: impl=http, GET
// view?digest=true against GET view over loopback with keep-alive (the answer carries the
// digest's text besides); impl=in-process, transcript.Project with Query.Digest against
// Project without (the reads alone). Each iteration makes one of each, alternating which
// goes first, and reports the ratio of their summed times as digest/plain (target: at most
// 1.1).
//
//	go test -run '^$' -bench BenchmarkViewDigest -benchtime 2000x ./server
//	scripts/pgtest.sh go test -run '^$' -bench BenchmarkViewDigest -benchtime 2000x ./server
func BenchmarkViewDigest(b *testing.B) {
	for _, kind := range benchStoreKinds {
		b.Run("store="+kind.name, func(b *testing.B) {
			st := kind.open(b)
			benchFill(b, st, 20_000)
			ds, ok := st.Log("eng").(digest.Store)
			if !ok {
				b.Skip("the store keeps no digests")
			}
			if _, folded, err := digest.Fold(context.Background(), ds, digest.Extractive{}, digest.Policy{}, transcript.Conversation{Desk: "eng"}); err != nil || !folded {
				b.Fatalf("fold: %v, %v", folded, err)
			}
			viewer := transcript.Agent("a1", "Agent")
			secret := benchToken(b, st, "eng", viewer)
			srv := newBenchServer(b, st)
			plain := benchGetClient(b, srv, secret, "/v1/desks/eng/view")
			withDigest := benchGetClient(b, srv, secret, "/v1/desks/eng/view?digest=true")
			if !bytes.Contains(withDigest(), []byte(`"digest":{`)) || bytes.Contains(plain(), []byte(`"digest":{`)) {
				b.Fatal("the view with digest=true carries no digest, or the one without carries one")
			}
			project := func(digest bool) func() {
				return func() {
					p, err := transcript.Project(context.Background(), st.Log("eng"), transcript.Query{Viewer: viewer, Digest: digest})
					if err != nil || (p.Digest != nil) != digest {
						b.Fatalf("Project with Digest %v: digest %v, %v", digest, p.Digest != nil, err)
					}
				}
			}
			b.Run("impl=http", func(b *testing.B) { benchPaired(b, func() { plain() }, func() { withDigest() }, "digest/plain") })
			b.Run("impl=in-process", func(b *testing.B) { benchPaired(b, project(false), project(true), "digest/plain") })
		})
	}
}

// benchPaired times base and other once each an iteration, after 100 of each unmeasured,
// alternating which goes first, and reports the ratio of their summed times, other's over
// base's, as unit.
func benchPaired(b *testing.B, base, other func(), unit string) {
	for range 100 {
		base()
		other()
	}
	var tBase, tOther time.Duration
	first, second, t1, t2 := base, other, &tBase, &tOther
	for b.Loop() {
		start := time.Now()
		first()
		mid := time.Now()
		second()
		*t1 += mid.Sub(start)
		*t2 += time.Since(mid)
		first, second, t1, t2 = second, first, t2, t1
	}
	b.ReportMetric(float64(tOther)/float64(tBase), unit)
}

// BenchmarkAppendFolding: an append's answer (POST /v1/desks/eng/messages over loopback,
// keep-alive) from a server that folds digests in the background (Options.Digester:
// digest.Extractive, the default policy) against one that does not, each on its own store
// of the same kind. Each iteration appends once to each, alternating which goes first, and
// reports the ratio of their summed answer times as on/off (target: at most 1.05). The
// folds run while the appends go on: their cost to the appends is in the figure.
//
//	go test -run '^$' -bench BenchmarkAppendFolding -benchtime 3000x ./server
//	scripts/pgtest.sh go test -run '^$' -bench BenchmarkAppendFolding -benchtime 3000x ./server
func BenchmarkAppendFolding(b *testing.B) {
	for _, kind := range benchStoreKinds {
		b.Run("store="+kind.name, func(b *testing.B) {
			poster := func(opts server.Options) func() {
				st := kind.open(b)
				secret := benchToken(b, st, "eng", transcript.Agent("a1", "Agent"))
				opts.Rate = rate.Inf
				srv, err := server.New(st, opts)
				if err != nil {
					b.Fatal(err)
				}
				b.Cleanup(func() { srv.Shutdown(context.Background()) })
				ts := httptest.NewServer(srv)
				b.Cleanup(ts.Close)
				client := ts.Client()
				n := 0
				return func() {
					n++
					req, err := http.NewRequest("POST", ts.URL+"/v1/desks/eng/messages", bytes.NewReader(fmt.Appendf(nil, `{"content":"message %d of the benchmark desk, of ordinary length for a chat"}`, n)))
					if err != nil {
						b.Fatal(err)
					}
					req.Header.Set("Authorization", "Bearer "+secret)
					req.Header.Set("Content-Type", "application/json")
					res, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					res.Body.Close()
					if res.StatusCode != http.StatusCreated {
						b.Fatalf("append: %s", res.Status)
					}
				}
			}
			on := poster(server.Options{Digester: digest.Extractive{}})
			off := poster(server.Options{})
			benchPaired(b, off, on, "on/off")
		})
	}
}
