package sqlitestore_test

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/heaptest"
	"github.com/sharedesk/transcript/sharing"
)

// heapHighWater runs walk and returns the most the heap's objects grew above what they were
// before it, sampled every 100 µs while it runs and once after, with the collector set to run
// at 10% growth so that what is sampled is close to what is live. Not a timing: a size.
func heapHighWater(t *testing.T, walk func()) uint64 {
	t.Helper()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := read()
	var (
		peak uint64
		wg   sync.WaitGroup
		stop = make(chan struct{})
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			peak = max(peak, read())
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	walk()
	close(stop)
	wg.Wait()
	peak = max(peak, read())
	if peak < base {
		return 0
	}
	return peak - base
}

// TestWalkHeapBound: one Project and one Prepare over a desk of rows of 1 MiB, with a byte
// budget of 1 MiB, hold about the budget and a page of content at a time, not the desk.
// The desk is 96 rows of 1 MiB: a root, then replies to it and new roots in turn, so that a
// channel view of window 2048, the root's thread view and a channel delta from the desk's
// start all read every row. Each walk's heap high-water stays under 3 × the budget +
// 2 × transcript.PageBytes + 8 MiB of slack (19 MiB), in the least of up to three walks;
// holding the pages it read, as a walk once did, it would be about the desk's 96 MiB.
func TestWalkHeapBound(t *testing.T) {
	heaptest.Serial(t)
	const (
		rows   = 96
		size   = 1 << 20
		budget = 1 << 20
		bound  = 3*budget + 2*transcript.PageBytes + 8<<20
	)
	st := openTemp(t)
	ctx := context.Background()
	author := transcript.Person("ana", "Ana")
	for i := range rows {
		m := transcript.Message{Author: author, Content: strings.Repeat(string(rune('a'+i%26)), size)}
		if i%2 == 1 {
			m.Parent = 1
		}
		if _, err := st.Append(ctx, "big", m); err != nil {
			t.Fatal(err)
		}
	}
	log := st.Log("big")
	channel := transcript.Conversation{Desk: "big"}
	thread := transcript.Conversation{Desk: "big", Thread: 1}
	walks := []struct {
		name string
		walk func() (int, error) // how many messages the answer holds
	}{
		{"channel view", func() (int, error) {
			p, err := transcript.Project(ctx, log, transcript.Query{Conversation: channel, Window: 2048, MaxBytes: budget})
			return len(p.Messages), err
		}},
		{"thread view", func() (int, error) {
			p, err := transcript.Project(ctx, log, transcript.Query{Conversation: thread, Window: 2048, MaxBytes: budget})
			return len(p.Messages), err
		}},
		{"channel delta", func() (int, error) {
			plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, State: sharing.Initialized(channel, 0), MaxBytes: budget})
			return len(plan.Delta.Messages), err
		}},
		{"thread delta", func() (int, error) {
			plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: thread, Current: thread, State: sharing.Initialized(thread, 0), MaxBytes: budget})
			return len(plan.Delta.Messages), err
		}},
	}
	for _, w := range walks {
		var (
			n   int
			err error
		)
		grew := heapHighWater(t, func() { n, err = w.walk() })
		for try := 1; err == nil && grew > bound && try < 3; try++ {
			// On a busy machine the collector can lag the walk by a page or two of garbage:
			// the least of three walks is the measure. A walk that holds the pages it read
			// is over the bound every time.
			grew = min(grew, heapHighWater(t, func() { n, err = w.walk() }))
		}
		if err != nil {
			t.Fatalf("%s: %v", w.name, err)
		}
		t.Logf("%s: %d messages, heap high-water %.1f MiB above the start", w.name, n, float64(grew)/(1<<20))
		if n == 0 || n > 2 {
			t.Errorf("%s: %d messages within a budget of one row (and a pinned root)", w.name, n)
		}
		if grew > bound {
			t.Errorf("%s over %d rows of %d MiB: the heap grew by %.1f MiB, over the bound of %d MiB (3 × the budget of %d MiB + 2 × a page of %d MiB + 8 MiB)",
				w.name, rows, size>>20, float64(grew)/(1<<20), bound>>20, budget>>20, transcript.PageBytes>>20)
		}
	}
}
