package fanout

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/logtest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/token"
)

// countingLog counts the reads of a Log.
type countingLog struct {
	transcript.Log
	reads atomic.Int64
}

func (c *countingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	c.reads.Add(1)
	return c.Log.ReadBefore(ctx, before, limit)
}

// tailDesk is a logtest.Desk whose Log is a tail's over a memlog: an Append appends to the
// memlog and refreshes the tail before it returns, as a wake-up would.
type tailDesk struct {
	transcript.Log
	mem  *memlog.Log
	tail *Tail
}

func (d *tailDesk) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	stored, err := d.mem.Append(ctx, m)
	if err != nil {
		return stored, err
	}
	return stored, d.tail.refresh(ctx)
}

// testTailBytes is the service's default TailBytes (server.testTailBytes).
const testTailBytes = 32 << 20

// testOptions are the options the service hands the fan-out for TailRows rows (at most
// transcript.ScanLimit, as server.Options makes it) and TailBytes bytes, its defaults for
// the rest.
func testOptions(rows, bytes int) Options {
	return Options{TailRows: rows, TailBytes: bytes, PollInterval: 500 * time.Millisecond, WriteTimeout: 30 * time.Second, Logger: slog.New(slog.DiscardHandler)}
}

func newTestTail(t testing.TB, src transcript.Log, rows, bytes int) *Tail {
	t.Helper()
	tl := newTail("eng", src, new(token.MemStore), testOptions(rows, bytes), new(Metrics))
	if err := tl.load(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tl.stop)
	return tl
}

// TestTailLogConforms runs the conformance kit against a tail's Log, holding all of the
// newest rows, a few of them (most reads fall back to the store) and one.
func TestTailLogConforms(t *testing.T) {
	for _, c := range []struct{ rows, bytes int }{
		{transcript.ScanLimit, testTailBytes},
		{100, testTailBytes},
		{1, testTailBytes},
		{transcript.ScanLimit, 4 << 10}, // the byte budget, not the row budget, trims
	} {
		t.Run(fmt.Sprintf("rows=%d,bytes=%d", c.rows, c.bytes), func(t *testing.T) {
			logtest.Run(t, func(t *testing.T) logtest.Desk {
				mem := memlog.New()
				tl := newTestTail(t, mem, c.rows, c.bytes)
				return &tailDesk{Log: tl.Log(), mem: mem, tail: tl}
			})
		})
	}
}

// TestTailLoadsAtStart: a tail made over a log that already holds rows answers from them.
func TestTailLoadsAtStart(t *testing.T) {
	mem := memlog.New()
	for i := range 50 {
		if _, err := mem.Append(t.Context(), transcript.Message{Author: transcript.Operator(), Content: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	src := &countingLog{Log: mem}
	tl := newTestTail(t, src, 20, testTailBytes)
	loads := src.reads.Load()
	p, err := transcript.Project(t.Context(), tl.Log(), transcript.Query{Window: 5})
	if err != nil {
		t.Fatal(err)
	}
	if p.Head != 50 || len(p.Messages) != 5 || src.reads.Load() != loads {
		t.Fatalf("head %d, %d messages, %d store reads after the load; want 50, 5, 0", p.Head, len(p.Messages), src.reads.Load()-loads)
	}
	p, err = transcript.Project(t.Context(), tl.Log(), transcript.Query{Window: 40})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Messages) != 40 || src.reads.Load() == loads {
		t.Fatalf("%d messages with %d store reads; want 40, reading below the tail from the store", len(p.Messages), src.reads.Load()-loads)
	}
}

// TestTailReadsOncePerWakeUp: however many streams wait on a desk, a wake-up reads the
// desk's new rows from the store once, and the streams' deltas read none.
func TestTailReadsOncePerWakeUp(t *testing.T) {
	const streams = 100
	mem := memlog.New()
	src := &countingLog{Log: mem}
	tl := newTestTail(t, src, transcript.ScanLimit, testTailBytes)
	conv := transcript.Conversation{Desk: "eng"}
	states := make([]sharing.State, streams)
	for i := range states {
		states[i] = sharing.Initialized(conv, 0)
	}
	for round := range 10 {
		if _, err := mem.Append(t.Context(), transcript.Message{Author: transcript.Operator(), Content: fmt.Sprint("row ", round)}); err != nil {
			t.Fatal(err)
		}
		before := src.reads.Load()
		if err := tl.refresh(t.Context()); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range states {
			wg.Go(func() {
				plan, err := sharing.Prepare(t.Context(), tl.Log(), sharing.Query{Desired: conv, Current: conv, State: states[i], Viewer: transcript.Agent("a", "")})
				if err != nil || plan.Reinitialize != 0 || len(plan.Delta.Messages) != 1 {
					t.Errorf("stream %d round %d: %+v, %v", i, round, plan, err)
					return
				}
				states[i] = plan.Delta.Next
			})
		}
		wg.Wait()
		if got := src.reads.Load() - before; got != 1 {
			t.Fatalf("round %d: %d store reads for one new row and %d streams, want 1", round, got, streams)
		}
	}
}

// TestTailGapBeyondBudget: more new rows at once than the tail holds: it keeps the
// newest, and reads below them go to the store and agree with it.
func TestTailGapBeyondBudget(t *testing.T) {
	mem := memlog.New()
	tl := newTestTail(t, mem, 10, testTailBytes)
	for i := range 100 {
		if _, err := mem.Append(t.Context(), transcript.Message{Author: transcript.Operator(), Content: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tl.refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	changed, head := tl.Current()
	if head != 100 {
		t.Fatalf("head %d, want 100", head)
	}
	select {
	case <-changed:
		t.Fatal("the current change channel is closed already")
	default:
	}
	want, err := transcript.Project(t.Context(), mem, transcript.Query{Window: 60})
	if err != nil {
		t.Fatal(err)
	}
	got, err := transcript.Project(t.Context(), tl.Log(), transcript.Query{Window: 60})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != len(want.Messages) || got.Messages[0].Seq != want.Messages[0].Seq || got.Head != want.Head {
		t.Fatalf("tail view: %d messages from %d, head %d; store: %d from %d, head %d",
			len(got.Messages), got.Messages[0].Seq, got.Head, len(want.Messages), want.Messages[0].Seq, want.Head)
	}
}

// TestTailWakeCloses: a wake-up with new rows closes the channel streams wait on.
func TestTailWakeCloses(t *testing.T) {
	mem := memlog.New()
	tl := newTail("eng", mem, new(token.MemStore), testOptions(transcript.ScanLimit, testTailBytes), new(Metrics))
	if err := tl.load(t.Context()); err != nil {
		t.Fatal(err)
	}
	defer tl.stop()
	changed, _ := tl.Current()
	if _, err := mem.Append(t.Context(), transcript.Message{Author: transcript.Operator(), Content: "x"}); err != nil {
		t.Fatal(err)
	}
	tl.wake()
	select {
	case <-changed:
	case <-time.After(5 * time.Second):
		t.Fatal("no change within 5 s of a wake-up")
	}
}

// TestTailRowsAtMostScanLimit: with TailRows at transcript.ScanLimit, what the service makes
// of a larger one (server.Options), the tail loads that many rows and, as new ones come,
// trims back to it as it would with the default.
func TestTailRowsAtMostScanLimit(t *testing.T) {
	mem := memlog.New()
	add := func(n int) {
		for i := range n {
			if _, err := mem.Append(t.Context(), transcript.Message{Author: transcript.Operator(), Content: fmt.Sprint(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	add(3 * transcript.ScanLimit)
	tl := newTestTail(t, mem, transcript.ScanLimit, testTailBytes)
	add(transcript.ScanLimit / 2)
	if err := tl.refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	tl.mu.RLock()
	held, head := len(tl.rows), tl.head
	tl.mu.RUnlock()
	if most := transcript.ScanLimit + transcript.ScanLimit/8; held > most || head != transcript.Sequence(3*transcript.ScanLimit+transcript.ScanLimit/2) {
		t.Fatalf("the tail holds %d rows up to %d; want at most %d, up to the newest", held, head, most)
	}
}
