package digest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/benchdesk"
)

// BenchmarkFold folds benchdesk's busy channel with Extractive and the default policy:
// from-nothing folds a desk of rows from nothing until the policy says no more (one op: the
// whole desk, about 400 generations for 100,000 rows); after-50 is one fold of the same desk,
// folded, after 50 new roots. rows/op and reads/op count the rows and reads of the log.
func BenchmarkFold(b *testing.B) {
	ctx := context.Background()
	n := benchdesk.Rows(b, 100_000)
	b.Run(fmt.Sprintf("rows=%d/from-nothing", n), func(b *testing.B) {
		var rows, reads, gens int
		for b.Loop() {
			b.StopTimer()
			log := benchDesk(b, n)
			b.StartTimer()
			gens += foldAll(b, log)
			rows, reads = rows+log.rows, reads+log.reads
		}
		b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
		b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
		b.ReportMetric(float64(gens)/float64(b.N), "generations/op")
	})
	b.Run(fmt.Sprintf("rows=%d/after-50", n), func(b *testing.B) {
		log := benchDesk(b, n)
		foldAll(b, log)
		var rows, reads int
		for b.Loop() {
			b.StopTimer()
			for i := range 50 {
				m := transcript.Message{Author: benchdesk.Authors[i%len(benchdesk.Authors)], Content: benchdesk.Contents[i%len(benchdesk.Contents)]}
				if _, err := log.Append(ctx, m); err != nil {
					b.Fatal(err)
				}
			}
			log.reset(0)
			b.StartTimer()
			if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{}, transcript.Conversation{}); err != nil || !stored {
				b.Fatalf("Fold after 50 rows: %v, %v", stored, err)
			}
			rows, reads = rows+log.rows, reads+log.reads
		}
		b.ReportMetric(float64(rows)/float64(b.N), "rows/op")
		b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	})
}
