package pgstore_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

// TestCommitOrderOnStandby makes TestCommitOrder's steps with the readers on the standby:
// one append held inside its transaction, its Seq assigned, a second waiting for the desk's
// lock. Once the standby has replayed everything committed, neither reader sees either row:
// the one reading through the Store (its standby, with its fences) nor the one reading the
// standby alone. Once both commit, the Store's reader accepts both at once (the Store
// waits for the standby to replay its appends), and the standby's reader accepts them as
// the standby replays them, in order, each once, never a row below one it accepted.
func TestCommitOrderOnStandby(t *testing.T) {
	t.Parallel()
	st, primary, standby := openRouted(t)
	ctx := t.Context()
	monitor := connect(t, primary)
	caughtUp(t, primary, standby)
	routed := newReader(st.Log("eng"), "eng")
	alone := newReader(mustOpen(t, standby).Log("eng"), "eng")
	var base transcript.Sequence
	for _, round := range []string{"new desk", "existing desk"} {
		held := holdNextAppend(t, st)
		first := appendAsync(ctx, st, "eng", "first")
		rows := <-held.reached
		if rows[0].Seq != base+1 {
			t.Fatalf("%s: the held append got Seq %d, want %d", round, rows[0].Seq, base+1)
		}
		second := appendAsync(ctx, st, "eng", "second")
		waitForLockWaiters(t, monitor, 1)
		caughtUp(t, primary, standby) // everything committed is on the standby: not the held rows
		for name, r := range map[string]*reader{"the store's reader": routed, "the standby's reader": alone} {
			if got := r.catchUp(t); len(got) != 0 {
				t.Fatalf("%s: %s saw %v before the first append committed", round, name, got)
			}
		}

		close(held.release)
		for i, ch := range []<-chan appendResult{first, second} {
			res := <-ch
			if want := base + transcript.Sequence(i) + 1; res.err != nil || res.m.Seq != want {
				t.Fatalf("%s: append %d returned (Seq %d, %v), want Seq %d", round, i+1, res.m.Seq, res.err, want)
			}
		}
		if got, want := routed.catchUp(t), []transcript.Sequence{base + 1, base + 2}; !slices.Equal(got, want) {
			t.Errorf("%s: after both commits the store's reader accepted %v, want %v: it reads its own writes", round, got, want)
		}
		deadline := time.Now().Add(time.Minute)
		for last := alone.state.Watermark; last < base+2; last = alone.state.Watermark {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the standby's reader is at %d after a minute, want %d", round, last, base+2)
			}
			for _, seq := range alone.catchUp(t) {
				if seq <= last {
					t.Fatalf("%s: the standby's reader accepted row %d after row %d", round, seq, last)
				}
				last = seq
			}
		}
		base += 2
	}
	pgstore.SetBeforeCommit(st, nil)
	want := []transcript.Sequence{1, 2, 3, 4}
	for name, r := range map[string]*reader{"the store's reader": routed, "the standby's reader": alone} {
		if !slices.Equal(r.accepted, want) {
			t.Errorf("%s accepted %v, want every row once: %v", name, r.accepted, want)
		}
	}
	if sb, _ := pgstore.StandbyReads(st); sb[0] == 0 {
		t.Error("the store's standby answered no read")
	}
}

// TestStandbyShowsAPrefix has 4 writers append 50 rows each to one desk on the primary
// while 4 readers read the newest rows on the standby alone, over and over: every page
// holds consecutive rows (a desk's rows have no gap, and the standby replays commits in
// their order, so it never shows a row without the rows below it), and a reader's newest
// row never goes back.
func TestStandbyShowsAPrefix(t *testing.T) {
	t.Parallel()
	const writers, rows, readers = 4, 50, 4
	dsn := syncCommit(newReplicatedDatabase(t))
	primary := mustOpen(t, dsn)
	standbyDSN := standbyOf(t, dsn)
	caughtUp(t, dsn, standbyDSN)
	standby := mustOpen(t, standbyDSN)
	ctx := t.Context()

	var wg sync.WaitGroup
	errs := make(chan error, writers+readers)
	for w := range writers {
		wg.Go(func() {
			for i := range rows {
				if _, err := primary.Append(ctx, "eng", transcript.Message{Author: bot, Content: fmt.Sprintf("writer %d row %d", w, i)}); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	const total = writers * rows
	pages := make([]int, readers)
	for r := range readers {
		wg.Go(func() {
			log := standby.Log("eng")
			var top transcript.Sequence
			deadline := time.Now().Add(2 * time.Minute)
			for top < total {
				if time.Now().After(deadline) {
					errs <- fmt.Errorf("reader %d: the standby's newest row is %d after two minutes, want %d", r, top, total)
					return
				}
				page, err := log.ReadBefore(ctx, 0, 64)
				if err != nil {
					errs <- err
					return
				}
				pages[r]++
				for i, m := range page.Messages {
					if want := page.Messages[0].Seq - transcript.Sequence(i); m.Seq != want {
						errs <- fmt.Errorf("reader %d: page from row %d holds row %d at index %d, want %d: a row missing below a row shown", r, page.Messages[0].Seq, m.Seq, i, want)
						return
					}
				}
				if len(page.Messages) == 0 {
					continue
				}
				if page.Messages[0].Seq < top {
					errs <- fmt.Errorf("reader %d: newest row %d after %d", r, page.Messages[0].Seq, top)
					return
				}
				top = page.Messages[0].Seq
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	t.Logf("pages read by each reader on the standby: %v", pages)
}

// TestConcurrentSharingOnStandby runs the store suite's sharing check with the writers on
// the primary and the agents reading on the standby: through a read-only Store on the
// standby alone, and through another Store that reads from the standby and falls back on
// the primary (which knows nothing of the writers' appends: only its own reads set its
// fences). Every agent must accept every qualifying row exactly once.
func TestConcurrentSharingOnStandby(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		reader func(t *testing.T, primary, standby string) storetest.Logs
	}{
		{"standby alone", func(t *testing.T, _, standby string) storetest.Logs { return mustOpen(t, standby) }},
		{"store with a standby", func(t *testing.T, primary, standby string) storetest.Logs {
			st := mustOpen(t, primary, pgstore.WithStandbys(standby))
			return st
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dsn := syncCommit(newReplicatedDatabase(t))
			writers := mustOpen(t, dsn)
			standby := standbyOf(t, dsn)
			caughtUp(t, dsn, standby)
			storetest.ConcurrentSharing(t, writers, c.reader(t, dsn, standby), func(t *testing.T) { caughtUp(t, dsn, standby) })
		})
	}
}
