package server_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server"
)

// BenchmarkSearchLoopback: the search route's first page against the view route, over
// loopback HTTP with keep-alive, for the same viewer on the same desk of 100,000 rows
// (benchFill's), on each store that searches:
//
//   - route=view: GET view, the channel's newest 30 messages;
//   - route=search-common: GET search for a word every row holds (benchmark): a first
//     page of 20;
//   - route=search-rare: GET search for a word one row holds (4711);
//   - route=paired: one GET view and one GET search-common each iteration, alternating
//     which goes first, reporting the ratio of their summed times as search/view.
//
// Each route runs 100 times before timing.
//
//	go test -run '^$' -bench BenchmarkSearchLoopback -benchmem ./server
func BenchmarkSearchLoopback(b *testing.B) {
	for _, kind := range benchStoreKinds {
		b.Run("store="+kind.name, func(b *testing.B) {
			st := kind.open(b)
			if _, ok := st.Log("eng").(transcript.Searcher); !ok {
				b.Skipf("the %s store cannot search", kind.name)
			}
			benchFill(b, st, benchRows)
			secret := benchToken(b, st, "eng", transcript.Agent("a1", "Agent"))
			srv := newBenchServer(b, st)
			view := benchGetClient(b, srv, secret, "/v1/desks/eng/view")
			common := benchGetClient(b, srv, secret, "/v1/desks/eng/search?q=benchmark")
			rare := benchGetClient(b, srv, secret, "/v1/desks/eng/search?q=4711")
			for _, c := range []struct {
				get  func() []byte
				want int
			}{{common, transcript.SearchLimit}, {rare, 1}} {
				var a server.SearchAnswer
				if err := json.Unmarshal(c.get(), &a); err != nil || len(a.Messages) != c.want {
					b.Fatalf("a search answers %d messages (%v), want %d", len(a.Messages), err, c.want)
				}
			}
			for range 100 { // warm the store's statement caches and connections
				view()
				common()
				rare()
			}
			for _, r := range []struct {
				name string
				get  func() []byte
			}{{"view", view}, {"search-common", common}, {"search-rare", rare}} {
				b.Run("route="+r.name, func(b *testing.B) {
					defer benchReportCPU(b)()
					for b.Loop() {
						r.get()
					}
				})
			}
			b.Run("route=paired", func(b *testing.B) {
				var viewNs, searchNs time.Duration
				i := 0
				for b.Loop() {
					first, second, firstNs, secondNs := view, common, &viewNs, &searchNs
					if i%2 == 1 {
						first, second, firstNs, secondNs = common, view, &searchNs, &viewNs
					}
					t0 := time.Now()
					first()
					t1 := time.Now()
					second()
					*firstNs += t1.Sub(t0)
					*secondNs += time.Since(t1)
					i++
				}
				b.ReportMetric(float64(searchNs)/float64(viewNs), "search/view")
			})
		})
	}
}
