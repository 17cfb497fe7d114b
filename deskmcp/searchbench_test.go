package deskmcp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
)

// benchRare is how many rows of the search benchmark's desk hold benchdesk.RareWord.
const benchRare = 10

// BenchmarkSearchDesk measures search_desk, the server's side of one tools/call (as
// BenchmarkReadDeskNoNews's impl=server), on a desk of benchRows rows of benchdesk's
// stream, benchRare of them holding benchdesk.RareWord, in memlog (the brute-force model)
// and SQLite (its index), against read_desk with nothing new and view (30 messages) on the
// same desk:
//
//   - impl=read_desk, impl=view: the baselines;
//   - impl=search/rare: every hit of the rare word, one page;
//   - impl=search/common: the first page (20 hits) of benchdesk.CommonWord;
//   - impl=searcher/rare, impl=searcher/common: the same searches asked of the log's
//     transcript.Searcher directly, without MCP, rendering or token counting;
//   - impl=paired/rare, impl=paired/common: one search and one read_desk per iteration,
//     alternating which goes first, reporting search/read, the ratio of their summed times.
//
// Each checks its answer before timing.
func BenchmarkSearchDesk(b *testing.B) {
	for _, s := range []struct {
		name string
		open func(testing.TB) store
	}{
		{"memlog", func(testing.TB) store { return newMemStore() }},
		{"sqlite", func(t testing.TB) store { st, _ := sqliteStore(t); return st }},
	} {
		b.Run("store="+s.name, func(b *testing.B) { benchSearchDesk(b, s.open(b)) })
	}
}

func benchSearchDesk(b *testing.B, st store) {
	msgs := benchdesk.NewMessages(benchRows)
	if n := benchdesk.Rare(msgs, benchRare); n != benchRare {
		b.Fatalf("%d rows hold the rare word, want %d", n, benchRare)
	}
	for _, m := range msgs {
		if _, err := st.Append(context.Background(), desk, m); err != nil {
			b.Fatal(err)
		}
	}
	agent := benchdesk.Authors[3]
	call := serverPipe(b, service(b, st), agent)
	const readDesk = `{"name":"read_desk","arguments":{}}`
	call(readDesk) // the first read: the view
	if got := call(readDesk); !strings.Contains(got, "Nothing new") || strings.Contains(got, "isError") {
		b.Fatalf("read_desk: %s, want nothing new", got)
	}
	const view = `{"name":"view","arguments":{}}`
	if got := call(view); !strings.Contains(got, "30 messages") {
		b.Fatalf("view: %.300s, want 30 messages", got)
	}
	searches := map[string]string{
		"rare":   fmt.Sprintf(`{"name":"search_desk","arguments":{"query":%q}}`, benchdesk.RareWord),
		"common": fmt.Sprintf(`{"name":"search_desk","arguments":{"query":%q}}`, benchdesk.CommonWord),
	}
	if got := call(searches["rare"]); strings.Contains(got, "isError") || !strings.Contains(got, "No older hits") || !strings.Contains(got, benchdesk.RareWord) {
		b.Fatalf("search_desk rare: %.300s, want its hits, one page", got)
	}
	if got := call(searches["common"]); strings.Contains(got, "isError") || !strings.Contains(got, "20 messages") {
		b.Fatalf("search_desk common: %.300s, want a page of 20", got)
	}

	for _, c := range []struct{ name, params string }{
		{"read_desk", readDesk}, {"view", view}, {"search/rare", searches["rare"]}, {"search/common", searches["common"]},
	} {
		b.Run("impl="+c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				call(c.params)
			}
		})
	}
	searcher := st.Log(desk).(transcript.Searcher)
	for _, word := range []string{"rare", "common"} {
		text := map[string]string{"rare": benchdesk.RareWord, "common": benchdesk.CommonWord}[word]
		b.Run("impl=searcher/"+word, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := searcher.Search(context.Background(), transcript.SearchQuery{Text: text, Viewer: agent}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	for _, word := range []string{"rare", "common"} {
		b.Run("impl=paired/"+word, func(b *testing.B) {
			search, read := paired(b, func() { call(searches[word]) }, func() { call(readDesk) })
			b.ReportMetric(float64(search)/float64(read), "search/read")
		})
	}
}
