package logtest

import (
	"context"
	"runtime"
	"sync"

	"github.com/sharedesk/transcript"
)

const (
	concurrentSeed  = 64  // rows appended before the readers start, so every walk spans pages
	concurrentRows  = 512 // rows appended in all
	concurrentWalks = 16  // walks per reader while rows are appended, at most
)

// readerLimits are the page sizes of the reader goroutines, one reader each.
var readerLimits = []int{5, 32, 100, transcript.PageSize}

// checkConcurrentReads: several goroutines walk the log down from its newest row, again and
// again, while one goroutine appends. Every walk keeps the page contract and is exactly the
// rows at or below its head, as Append returned them: no row torn, skipped or committed out
// of order. A walk that starts after an Append returned sees that row. Run it with -race.
func checkConcurrentReads(ctx context.Context, d Desk, r *report) {
	f := newFiller(d)
	appended := newAppended()
	for range concurrentSeed {
		m, err := f.append(ctx)
		if err != nil {
			r.add(err)
			return
		}
		appended.add(m)
	}
	var wg sync.WaitGroup
	for _, limit := range readerLimits {
		wg.Go(func() { readWhileAppending(ctx, d, limit, appended, r) })
	}
	for range concurrentRows - concurrentSeed {
		m, err := f.append(ctx)
		if err != nil {
			r.add(err)
			break
		}
		appended.add(m)
		runtime.Gosched() // let the readers in between appends
	}
	appended.finish()
	wg.Wait()
	// Readers that start late may all have walked only after the last Append: one more
	// Append, and a read after it, checks visibility whatever the scheduling was.
	m, err := f.append(ctx)
	if err != nil {
		r.add(err)
		return
	}
	pg, err := d.ReadBefore(ctx, 0, 1)
	switch {
	case err != nil:
		r.errorf("a read after the readers were done: %w", err)
	case len(pg.Messages) == 0 || pg.Messages[0].Seq < m.Seq:
		var head transcript.Sequence
		if len(pg.Messages) > 0 {
			head = pg.Messages[0].Seq
		}
		r.add(failf(kindVisibility, "a read that started after Append returned seq %d got head %d, want %d or above", m.Seq, head, m.Seq))
	}
}

// readWhileAppending walks d down from its newest row, up to concurrentWalks times while
// rows are appended and once more after the last Append returned, and checks every walk.
func readWhileAppending(ctx context.Context, d Desk, limit int, appended *appended, r *report) {
	for walks := 0; ; walks++ {
		if walks == concurrentWalks {
			appended.waitFinished()
		}
		last, finished := appended.newest()
		pages, err := walk(ctx, d, 0, limit, concurrentRows+1)
		if err != nil {
			r.errorf("reader with limit %d, while rows were appended: %w", limit, err)
			return
		}
		var head transcript.Sequence
		if len(pages) > 0 && len(pages[0].Messages) > 0 {
			head = pages[0].Messages[0].Seq
		}
		if head < last {
			r.add(failf(kindVisibility, "reader with limit %d: a walk that started after Append returned seq %d got head %d, want %d or above", limit, last, head, last))
			return
		}
		want, ok := appended.upTo(head)
		if !ok {
			r.add(failf(kindRows, "reader with limit %d: a walk got head %d, want at most %d: Append returned no such row", limit, head, want[0].Seq))
			return
		}
		if err := checkWalk(pages, want); err != nil {
			r.errorf("reader with limit %d, walk down from head %d while rows were appended: %w", limit, head, err)
			return
		}
		if finished {
			return
		}
	}
}

// appended is the rows the appending goroutine got back from Append, shared with the
// readers.
type appended struct {
	mu       sync.Mutex
	grown    *sync.Cond // signalled on every new row and on finish
	rows     []transcript.Message
	finished bool
}

func newAppended() *appended {
	a := new(appended)
	a.grown = sync.NewCond(&a.mu)
	return a
}

func (a *appended) add(m transcript.Message) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rows = append(a.rows, m)
	a.grown.Broadcast()
}

func (a *appended) finish() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.finished = true
	a.grown.Broadcast()
}

func (a *appended) waitFinished() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.finished {
		a.grown.Wait()
	}
}

// newest returns the Seq of the newest row Append returned and whether appending is over.
func (a *appended) newest() (transcript.Sequence, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.rows[len(a.rows)-1].Seq, a.finished
}

// upTo returns the rows at or below head, newest first. A reader may see a row before its
// Append returns, so upTo waits for head's Append; when appending is over without it, it
// returns every row and false.
func (a *appended) upTo(head transcript.Sequence) ([]transcript.Message, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for !a.finished && a.rows[len(a.rows)-1].Seq < head {
		a.grown.Wait()
	}
	return below(newestFirst(a.rows), head+1), a.rows[len(a.rows)-1].Seq >= head
}
