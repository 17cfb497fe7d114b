package transcript_test

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/heaptest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// heapLog is a Log over a memlog whose every read allocates the content it returns, as a
// database's does, and ends a page early at pageBytes of content, as the stores do at
// PageBytes. It records the most heap any read saw live, after a collection, with the page
// it returns.
type heapLog struct {
	log       *memlog.Log
	pageBytes int
	peak      uint64
}

func (l *heapLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	pg, err := l.log.ReadBefore(ctx, before, limit)
	if err != nil {
		return pg, err
	}
	bytes := 0
	for i := range pg.Messages {
		m := &pg.Messages[i]
		m.Content = strings.Clone(m.Content)
		if bytes += len(m.Content); bytes >= l.pageBytes && i+1 < len(pg.Messages) {
			pg.Messages, pg.Next = pg.Messages[:i+1], m.Seq
			break
		}
	}
	l.peak = max(l.peak, heapNow())
	return pg, nil
}

// heapNow returns the heap in use after a collection.
func heapNow() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// heapDesk returns a desk of n rows of rowBytes by alice, an edit of each of rowBytes, then
// n small roots by carol and a reply of rowBytes by alice to each, in that order: the rows
// of a walk's answer come after many it must pass over, and first replies wait for roots
// read last. It returns the desk, the watermark below the edits and the roots.
func heapDesk(t *testing.T, n, rowBytes int) (desk *memlog.Log, watermark transcript.Sequence, roots []transcript.Sequence) {
	t.Helper()
	ctx := context.Background()
	alice, carol := transcript.Person("alice", ""), transcript.Person("carol", "")
	desk = memlog.New()
	appendRow := func(m transcript.Message) transcript.Message {
		t.Helper()
		m, err := desk.Append(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	content := func(c byte) string { return strings.Repeat(string(c), rowBytes) }
	var originals []transcript.Sequence
	for range n {
		originals = append(originals, appendRow(transcript.Message{Author: alice, Content: content('a')}).Seq)
	}
	for _, seq := range originals {
		appendRow(transcript.Message{Author: alice, Corrects: seq, Content: content('e')})
	}
	for range n {
		roots = append(roots, appendRow(transcript.Message{Author: carol, Content: "root"}).Seq)
	}
	for _, root := range roots {
		appendRow(transcript.Message{Author: alice, Parent: root, Content: content('r')})
	}
	return desk, originals[len(originals)-1], roots
}

// TestHeapWalkHoldsTheBudget: whatever the desk holds above or below a reader's watermark,
// a walk holds the answer's byte budget of content, a page and little else — corrections,
// first replies still waiting for their root and rows the budget drops included. The desk:
// rows of 64 KiB by alice, then an edit of each of 64 KiB, then large replies by alice to
// small roots of carol's, each the first reply of its root, their roots read last. bob asks
// for a delta from the watermark below the edits, an events resume from there (the service's
// query: bound 0, bob's own rows left out) and a view of the channel, each with a budget of
// 1 MiB; the heap that any read of the walk sees live, and the heap the answer holds after
// it, stay within the budget, a page (1 MiB) and 2 MiB more, over the heap before.
func TestHeapWalkHoldsTheBudget(t *testing.T) {
	heaptest.Serial(t)
	const (
		rows      = 192
		rowBytes  = 64 << 10
		budget    = 1 << 20
		pageBytes = 1 << 20
		slack     = 2 << 20
	)
	ctx := context.Background()
	bob := transcript.Person("bob", "")
	desk, watermark, roots := heapDesk(t, rows, rowBytes)
	channel := transcript.Conversation{Desk: "eng"}
	cases := []struct {
		name string
		do   func(log transcript.Log) (any, error)
	}{
		{"delta from the watermark", func(log transcript.Log) (any, error) {
			return sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, Viewer: bob, MaxBytes: budget,
				State: sharing.Initialized(channel, watermark), Before: roots[0]})
		}},
		{"events resume", func(log transcript.Log) (any, error) {
			return sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, Viewer: bob, MaxBytes: budget,
				State: sharing.Initialized(channel, watermark), ExceptAuthor: bob})
		}},
		{"view", func(log transcript.Log) (any, error) {
			return transcript.Project(ctx, log, transcript.Query{Conversation: channel, Viewer: bob, Window: transcript.ScanLimit, MaxBytes: budget})
		}},
	}
	for _, c := range cases {
		log := &heapLog{log: desk, pageBytes: pageBytes}
		before := heapNow()
		answer, err := c.do(log)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		after := heapNow()
		runtime.KeepAlive(answer)
		bound := before + budget + pageBytes + slack
		t.Logf("%s: heap before %d KiB, peak during the walk %d KiB, with the answer %d KiB; bound %d KiB",
			c.name, before>>10, log.peak>>10, after>>10, bound>>10)
		if log.peak > bound || after > bound {
			t.Errorf("%s: the walk's heap went from %d KiB to a peak of %d KiB (%d KiB with its answer), over the budget, a page and %d KiB (%d KiB)",
				c.name, before>>10, log.peak>>10, after>>10, slack>>10, bound>>10)
		}
	}
}
