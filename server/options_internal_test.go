package server

import (
	"testing"

	"github.com/sharedesk/transcript"
)

// TestTailRowsAtMostScanLimit: a TailRows above transcript.ScanLimit, more than a stream's
// delta can read, counts as ScanLimit (the fan-out's TestTailRowsAtMostScanLimit holds a
// tail to it).
func TestTailRowsAtMostScanLimit(t *testing.T) {
	opts, err := Options{TailRows: 3 * transcript.ScanLimit}.withDefaults()
	if err != nil || opts.TailRows != transcript.ScanLimit {
		t.Fatalf("withDefaults: TailRows %d, %v; want %d", opts.TailRows, err, transcript.ScanLimit)
	}
	if got := opts.fanout().TailRows; got != transcript.ScanLimit {
		t.Fatalf("the fan-out's TailRows %d, want %d", got, transcript.ScanLimit)
	}
}
