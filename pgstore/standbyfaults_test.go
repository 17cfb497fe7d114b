package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
)

// cluster is a PostgreSQL server of a test's own with two streaming standbys, for the tests
// that pause a standby's replay or stop it: the test server's standby is every test's.
type cluster struct {
	primary  *pgtest.Server
	standbys []*pgtest.Server
}

// database creates a database of its own on the cluster's primary and returns its DSN on
// the primary and on each standby, once they have it.
func (c *cluster) database(t *testing.T) (primary string, standbys []string) {
	t.Helper()
	name := "db_" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "_"))
	if _, err := connect(t, c.primary.DSN).Exec(t.Context(), "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	primary = pgtest.WithDatabase(t, c.primary.DSN, name)
	for _, sb := range c.standbys {
		dsn := pgtest.WithDatabase(t, sb.DSN, name)
		pgtest.WaitForDatabase(t, dsn)
		standbys = append(standbys, dsn)
	}
	return primary, standbys
}

// pause pauses standby i's replay until the test ends or resume.
func (c *cluster) pause(t *testing.T, i int) {
	t.Helper()
	pool := connect(t, c.standbys[i].DSN)
	pgtest.PauseReplay(t, pool)
	t.Cleanup(func() { pgtest.ResumeReplay(t, pool) })
}

func (c *cluster) resume(t *testing.T, i int) {
	t.Helper()
	pgtest.ResumeReplay(t, connect(t, c.standbys[i].DSN))
}

// TestStandbyLagAndFaults runs, on a cluster of its own (a primary and two standbys), what
// a standby's lag and failures do to reads: each subtest on a database of its own, leaving
// the servers as it found them.
func TestStandbyLagAndFaults(t *testing.T) {
	t.Parallel()
	c := &cluster{primary: pgtest.Own(t, "pgstore")}
	c.standbys = []*pgtest.Server{c.primary.Standby(t), c.primary.Standby(t)}
	for _, sub := range []struct {
		name string
		run  func(t *testing.T, c *cluster)
	}{
		{"ReadYourWritesWhileReplayPaused", checkReadYourWritesWhilePaused},
		{"RedactionWhileReplayPaused", checkRedactionWhilePaused},
		{"OtherStoresRedaction", checkOtherStoresRedactionWhilePaused},
		{"FoldAfterOtherStoresRedaction", checkFoldAfterOtherStoresRedaction},
		{"DeleteDeskWhileReplayPaused", checkDeleteDeskWhilePaused},
		{"OtherStoresDeleteWhileReplayPaused", checkOtherStoresDeleteWhilePaused},
		{"WatchedRowsAreRead", checkWatchedRowsAreRead},
		{"SchemaBehindAtOpen", checkSchemaBehindAtOpen},
		{"NoHoleAcrossStandbys", checkNoHoleAcrossStandbys},
		{"SharingAcrossReplayPositions", checkSharingAcrossReplayPositions},
		{"StandbyStoppedAndRestarted", checkStandbyStoppedAndRestarted},
		{"StandbyDownAtOpen", checkStandbyDownAtOpen},
	} {
		t.Run(sub.name, func(t *testing.T) { sub.run(t, c) })
	}
}

// checkReadYourWritesWhilePaused: with the standby's replay paused, a row appended through
// the Store is still read back through it: the read waits its bound for the standby, then
// reads from the primary. The standby alone does not have the row, so the lag was real;
// once replay resumes, the standby answers the Store's reads again.
func checkReadYourWritesWhilePaused(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	const wait = 300 * time.Millisecond
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(wait))
	alone := mustOpen(t, standbys[0])
	first, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "before the pause"})
	if err != nil {
		t.Fatal(err)
	}
	agent := newReader(st.Log("eng"), "eng")
	if got := agent.catchUp(t); !slices.Equal(got, []transcript.Sequence{first.Seq}) {
		t.Fatalf("before the pause the agent accepted %v, want [%d]", got, first.Seq)
	}
	if sb, primaryReads := pgstore.StandbyReads(st); sb[0] == 0 || primaryReads != 0 {
		t.Fatalf("before the pause: the standby answered %d reads, the primary %d; want the standby only", sb[0], primaryReads)
	}

	c.pause(t, 0)
	second, err := st.Append(ctx, "eng", transcript.Message{Author: bot, Content: "while the standby is paused", Parent: first.Seq})
	if err != nil {
		t.Fatal(err)
	}
	third, err := st.Append(ctx, "eng", transcript.Message{Author: bot, Content: "a new root while paused"})
	if err != nil {
		t.Fatal(err)
	}
	if page := mustRead(t, alone.Log("eng"), 0, 10); len(page.Messages) != 1 {
		t.Fatalf("the paused standby holds %d rows, want 1: the lag is not real", len(page.Messages))
	}
	start := time.Now()
	page := mustRead(t, st.Log("eng"), 0, 10)
	waited := time.Since(start)
	if len(page.Messages) != 3 || page.Messages[0].Seq != third.Seq || page.Messages[1].Seq != second.Seq {
		t.Fatalf("a read through the store after its appends: %+v, want rows %d, %d and %d", page.Messages, third.Seq, second.Seq, first.Seq)
	}
	if waited < wait {
		t.Errorf("the read took %v, below the wait of %v: it did not wait for the standby", waited, wait)
	}
	if n := pgstore.StandbyWaitsRanOut(st); n != 1 {
		t.Errorf("%d waits for the standby ran out, want 1", n)
	}
	if _, primaryReads := pgstore.StandbyReads(st); primaryReads != 1 {
		t.Errorf("the primary answered %d reads, want 1: the read after the wait", primaryReads)
	}
	// The agent's delta comes from the primary too, whole; and the next read does not wait
	// again (the standby is not waited for while it lags).
	if got := agent.catchUp(t); !slices.Equal(got, []transcript.Sequence{second.Seq, third.Seq}) {
		t.Errorf("while paused the agent accepted %v, want [%d %d] (the first reply and the new root)", got, second.Seq, third.Seq)
	}
	if n := pgstore.StandbyWaitsRanOut(st); n != 1 {
		t.Errorf("%d waits ran out after a second read, want still 1: a lagging standby is not waited for again at once", n)
	}

	readFromStandbyOnceResumed(t, c, st, primary, standbys[0], 3)
}

// readFromStandbyOnceResumed resumes the first standby's replay, waits until it has caught
// up with primary, and wants st's next read of eng to show rows rows, answered by the
// standby: once caught up, it is read from again.
func readFromStandbyOnceResumed(t *testing.T, c *cluster, st *pgstore.Store, primary, standby string, rows int) {
	t.Helper()
	c.resume(t, 0)
	caughtUp(t, primary, standby)
	before, _ := pgstore.StandbyReads(st)
	if page := mustRead(t, st.Log("eng"), 0, 10); len(page.Messages) != rows {
		t.Fatalf("after the resume, %d rows, want %d", len(page.Messages), rows)
	}
	if after, _ := pgstore.StandbyReads(st); after[0] != before[0]+1 {
		t.Errorf("after the resume the standby answered %d more reads, want 1: it is used again", after[0]-before[0])
	}
}

// checkWatchedRowsAreRead: a row another Store appends, while the standby's replay is
// paused, is announced by the Watch of a Store that reads from the standby, and its read
// after the announcement shows the row (from the primary, once the wait for the standby
// runs out), as a server's live stream reads it: a lagging standby delays news, never
// loses it.
func checkWatchedRowsAreRead(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	writer := mustOpen(t, primary)
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(100*time.Millisecond))
	names := watch(t, st)
	log := st.Log("eng")
	for i, paused := range []bool{false, true} {
		if paused {
			c.pause(t, 0)
		}
		m, err := writer.Append(ctx, "eng", transcript.Message{Author: bot, Content: fmt.Sprint("announced ", i)})
		if err != nil {
			t.Fatal(err)
		}
		awaitNames(t, names, reportWithin, "eng")
		if page := mustRead(t, log, 0, 5); len(page.Messages) == 0 || page.Messages[0].Seq != m.Seq {
			t.Fatalf("paused %v: the read after the announcement of row %d: %+v", paused, m.Seq, page.Messages)
		}
	}
	sb, primaryReads := pgstore.StandbyReads(st)
	if sb[0] != 1 || primaryReads != 1 {
		t.Errorf("reads answered by the standby: %d, the primary: %d; want 1 each (the second while paused)", sb[0], primaryReads)
	}
}

// checkSchemaBehindAtOpen: a standby that has not replayed the primary's schema (its
// replay paused before the primary migrated) fails Open, naming both versions; once it
// replays, Open succeeds.
func checkSchemaBehindAtOpen(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	pool := connect(t, primary)
	if err := pgstore.MigrateTo(ctx, pool, 3); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, primary, standbys[0])
	c.pause(t, 0)
	_, err := pgstore.Open(ctx, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyOpenWait(200*time.Millisecond))
	if !errors.Is(err, pgstore.ErrSchemaBehind) {
		t.Fatalf("Open with a standby at version 3: %v, want ErrSchemaBehind", err)
	}
	cfg, err2 := pgx.ParseConfig(standbys[0])
	if err2 != nil {
		t.Fatal(err2)
	}
	name := fmt.Sprintf("standby %s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
	for _, want := range []string{"schema version 3", fmt.Sprintf("the primary at version %d", pgstore.LatestVersion), name} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open with a standby at version 3: %q does not say %q", err, want)
		}
	}
	c.resume(t, 0)
	st, err := pgstore.Open(ctx, primary, pgstore.WithStandbys(standbys[0]))
	if err != nil {
		t.Fatalf("Open once the standby replays: %v", err)
	}
	st.Close()
}

// checkNoHoleAcrossStandbys: standby 0 paused at row 5 of a desk, standby 1 at row 10,
// both written by another Store. A Store reading from both, in turn, never returns a page
// with a row missing below its newest (standby 0's answer to a read below 8 is rows 5, 4,
// ...: row 7 is missing), nor, once it has seen row 10, an older newest row: each such read
// is refused on standby 0 and answered by standby 1.
func checkNoHoleAcrossStandbys(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	writer := mustOpen(t, primary)
	appendRows := func(n int) {
		for i := range n {
			if _, err := writer.Append(ctx, "eng", transcript.Message{Author: bot, Content: fmt.Sprint("row ", i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	appendRows(5)
	caughtUp(t, primary, standbys[0])
	c.pause(t, 0)
	appendRows(5)
	caughtUp(t, primary, standbys[1])

	st := mustOpen(t, primary, pgstore.WithStandbys(standbys...), pgstore.WithStandbyWait(50*time.Millisecond))
	seqs := func(p transcript.Page) []transcript.Sequence {
		var out []transcript.Sequence
		for _, m := range p.Messages {
			out = append(out, m.Seq)
		}
		return out
	}
	// The standbys are asked in turn, one further on at each read: reading below 8 three
	// times in a row, then from the newest three times, asks each standby first at least once.
	for i := range 3 {
		if got := seqs(mustRead(t, st.Log("eng"), 8, 3)); !slices.Equal(got, []transcript.Sequence{7, 6, 5}) {
			t.Fatalf("read %d below 8: rows %v, want [7 6 5]", i, got)
		}
	}
	for i := range 3 {
		if got := seqs(mustRead(t, st.Log("eng"), 0, 2)); !slices.Equal(got, []transcript.Sequence{10, 9}) {
			t.Fatalf("read %d from the newest: rows %v, want [10 9]", i, got)
		}
	}
	sb, primaryReads := pgstore.StandbyReads(st)
	if sb[0] != 0 || sb[1] != 6 || primaryReads != 0 {
		t.Errorf("reads answered: standby 0 %d, standby 1 %d, the primary %d; want 0, 6, 0", sb[0], sb[1], primaryReads)
	}
	// An agent from watermark 0 gets every row, once, and a watermark of 10.
	agent := newReader(st.Log("eng"), "eng")
	if got := agent.catchUp(t); len(got) != 10 || agent.state.Watermark != 10 {
		t.Errorf("an agent from the start accepted %v up to watermark %d, want rows 1 to 10", got, agent.state.Watermark)
	}
}

// checkSharingAcrossReplayPositions runs the store suite's sharing check with the writers
// on one Store and the agents on another that reads from both standbys, while standby 0's
// replay is paused and resumed every 20 ms: the agents' reads move between a standby that
// is behind, one that is not and the primary, and every agent must still accept every
// qualifying row exactly once.
func checkSharingAcrossReplayPositions(t *testing.T, c *cluster) {
	primary, standbys := c.database(t)
	writers := mustOpen(t, primary)
	caughtUp(t, primary, standbys[0])
	caughtUp(t, primary, standbys[1])
	readers := mustOpen(t, primary, pgstore.WithStandbys(standbys...), pgstore.WithStandbyWait(10*time.Millisecond))

	toggle := connect(t, c.standbys[0].DSN)
	stop := make(chan struct{})
	var toggled sync.WaitGroup
	var pauses atomic.Int64
	toggled.Go(func() {
		defer pgtest.ResumeReplay(t, toggle)
		for paused := false; ; paused = !paused {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			fn := "pg_wal_replay_pause"
			if paused {
				fn = "pg_wal_replay_resume"
			} else {
				pauses.Add(1)
			}
			if _, err := toggle.Exec(context.Background(), "SELECT "+fn+"()"); err != nil {
				t.Error(err)
				return
			}
		}
	})
	storetest.ConcurrentSharing(t, writers, readers, func(t *testing.T) {
		close(stop)
		toggled.Wait()
		caughtUp(t, primary, standbys[0])
		caughtUp(t, primary, standbys[1])
	})
	sb, primaryReads := pgstore.StandbyReads(readers)
	t.Logf("standby 0's replay paused %d times; reads answered by standby 0: %d, standby 1: %d, the primary: %d", pauses.Load(), sb[0], sb[1], primaryReads)
	if sb[0] == 0 || sb[1] == 0 {
		t.Errorf("reads answered by standby 0: %d, standby 1: %d; want both used", sb[0], sb[1])
	}
}

// checkStandbyStoppedAndRestarted: 4 agents follow a desk through a Store with two
// standbys while a writer appends to it through the same Store. Standby 0 is stopped:
// reads move to standby 1; standby 1 is stopped too: reads move to the primary; each is
// started again: each is used again. No read fails, and every agent accepts every row
// exactly once.
func checkStandbyStoppedAndRestarted(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys...), pgstore.WithStandbyWait(200*time.Millisecond))
	for _, sb := range c.standbys {
		t.Cleanup(func() { // a failed check leaves no standby stopped for the next subtest
			if !sb.Running() {
				if err := sb.Start(); err != nil {
					t.Error(err)
				}
			}
		})
	}

	stopWriting, stopReading := make(chan struct{}), make(chan struct{})
	var writing, wg sync.WaitGroup
	errs := make(chan error, 16)
	var appended atomic.Int64
	writing.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stopWriting:
				return
			case <-time.After(2 * time.Millisecond):
			}
			m, err := st.Append(ctx, "eng", transcript.Message{Author: bot, Content: fmt.Sprint("row ", i)})
			if err != nil {
				errs <- fmt.Errorf("append %d: %w", i, err)
				return
			}
			appended.Store(int64(m.Seq))
		}
	})
	agents := make([]*reader, 4)
	for i := range agents {
		agents[i] = newReader(st.Log("eng"), "eng")
		wg.Go(func() {
			a := agents[i]
			for last := false; !last; {
				select {
				case <-stopReading:
					last = true // one more, after the writer's last append
				default:
				}
				plan, err := sharing.Prepare(ctx, a.log, sharing.Query{Desired: a.state.Conversation, Current: a.state.Conversation, State: a.state})
				if err != nil || plan.Reinitialize != 0 {
					errs <- fmt.Errorf("agent %d: prepare: %v (reinitialize %v)", i, err, plan.Reinitialize)
					return
				}
				for _, m := range plan.Delta.Messages {
					a.accepted = append(a.accepted, m.Seq)
				}
				a.state = plan.Delta.Next
			}
		})
	}
	reads := func() (int64, int64, int64) {
		sb, p := pgstore.StandbyReads(st)
		return sb[0], sb[1], p
	}
	// waitUntil waits, up to 30 s, until ok holds of the reads answered.
	waitUntil := func(what string, ok func(a, b, p int64) bool) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for a, b, p := reads(); !ok(a, b, p); a, b, p = reads() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: after 30 s, reads answered by standby 0: %d, standby 1: %d, the primary: %d", what, a, b, p)
			}
			select {
			case err := <-errs:
				t.Fatal(err)
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	a0, b0, _ := reads()
	waitUntil("both standbys answer", func(a, b, _ int64) bool { return a > a0+10 && b > b0+10 })

	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.standbys[0].Stop())
	a1, b1, _ := reads()
	waitUntil("standby 0 stopped", func(a, b, _ int64) bool { return b > b1+20 })
	if a, _, _ := reads(); a != a1 {
		t.Errorf("standby 0 answered %d reads while stopped", a-a1)
	}

	must(c.standbys[1].Stop())
	a2, b2, p2 := reads()
	waitUntil("both standbys stopped", func(_, _, p int64) bool { return p > p2+20 })
	if a, b, _ := reads(); a != a2 || b != b2 {
		t.Errorf("stopped standbys answered reads: %d and %d", a-a2, b-b2)
	}

	must(c.standbys[0].Start())
	a3, _, _ := reads()
	waitUntil("standby 0 started again", func(a, _, _ int64) bool { return a > a3+10 })
	must(c.standbys[1].Start())
	_, b4, _ := reads()
	waitUntil("standby 1 started again", func(_, b, _ int64) bool { return b > b4+10 })

	close(stopWriting)
	writing.Wait()
	close(stopReading)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	head := transcript.Sequence(appended.Load())
	for i, a := range agents {
		want := make([]transcript.Sequence, head)
		for j := range want {
			want[j] = transcript.Sequence(j + 1)
		}
		if !slices.Equal(a.accepted, want) {
			t.Errorf("agent %d accepted %d rows (watermark %d), want every row of 1 to %d once, in order", i, len(a.accepted), a.state.Watermark, head)
		}
	}
	a, b, p := reads()
	t.Logf("%d rows; reads answered by standby 0: %d, standby 1: %d, the primary: %d", head, a, b, p)
}

// checkStandbyDownAtOpen: a Store opens with a standby whose server is down; reads are
// answered (by the other standby or the primary), never by it, and once it is started it
// is checked and read from.
func checkStandbyDownAtOpen(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	down := c.standbys[1]
	if err := down.Stop(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a failed check leaves no standby stopped for the next subtest
		if !down.Running() {
			if err := down.Start(); err != nil {
				t.Error(err)
			}
		}
	})
	st, err := pgstore.Open(ctx, primary, pgstore.WithStandbys(standbys...), pgstore.WithStandbyWait(200*time.Millisecond))
	if err != nil {
		t.Fatalf("Open with a standby that is down: %v, want a Store that reads elsewhere meanwhile", err)
	}
	t.Cleanup(func() { st.Close() })
	read := func() []transcript.Sequence {
		t.Helper()
		var seqs []transcript.Sequence
		for _, m := range readDesk(t, st, "eng") {
			seqs = append(seqs, m.Seq)
		}
		return seqs
	}
	for i := range 20 {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: bot, Content: fmt.Sprint("row ", i)}); err != nil {
			t.Fatal(err)
		}
		if got := read(); len(got) != i+1 || got[i] != transcript.Sequence(i+1) {
			t.Fatalf("after append %d, a read gave %v", i+1, got)
		}
	}
	if served, _ := pgstore.StandbyReads(st); served[1] != 0 {
		t.Fatalf("the standby that is down answered %d reads", served[1])
	}

	if err := down.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for served, _ := pgstore.StandbyReads(st); served[1] == 0; served, _ = pgstore.StandbyReads(st) {
		if time.Now().After(deadline) {
			t.Fatalf("30 s after it started, the standby that was down at Open has answered no read")
		}
		if got := read(); len(got) != 20 {
			t.Fatalf("a read gave %d rows, want 20", len(got))
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// checkDeleteDeskWhilePaused: after the Store's DeleteDesk returns, a read of the desk shows
// none of its rows although the standby, its replay paused, still shows them all, and
// none once the standby has replayed the delete: a desk the primary does not hold is read
// there.
func checkDeleteDeskWhilePaused(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(10*time.Millisecond))
	for i := range 3 {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: fmt.Sprintf("deleted row %d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	caughtUp(t, primary, standbys[0])
	c.pause(t, 0)
	if _, err := st.DeleteDesk(ctx, "eng", true); err != nil {
		t.Fatal(err)
	}
	if page := mustRead(t, st.Log("eng"), 0, 10); len(page.Messages) != 0 {
		t.Fatalf("a read after DeleteDesk shows %d rows of the deleted desk (the first: %q)", len(page.Messages), page.Messages[0].Content)
	}
	c.resume(t, 0)
	caughtUp(t, primary, standbys[0])
	if page := mustRead(t, st.Log("eng"), 0, 10); len(page.Messages) != 0 {
		t.Fatalf("a read once the standby replayed the delete shows %d rows", len(page.Messages))
	}
}

// checkOtherStoresDeleteWhilePaused: a desk another Store deletes while the standby's replay
// is paused, once the Store's WatchHeads has reported it deleted, reads empty through the
// Store although the standby still shows its rows.
func checkOtherStoresDeleteWhilePaused(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(10*time.Millisecond))
	other := mustOpen(t, primary)
	for i := range 3 {
		if _, err := other.Append(ctx, "eng", transcript.Message{Author: alice, Content: fmt.Sprintf("deleted row %d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	caughtUp(t, primary, standbys[0])
	heads, err := st.WatchHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c.pause(t, 0)
	if _, err := other.DeleteDesk(ctx, "eng", true); err != nil {
		t.Fatal(err)
	}
	for deadline := time.After(10 * time.Second); ; {
		select {
		case h := <-heads:
			if head, ok := h["eng"]; !ok || head != 0 {
				continue
			}
		case <-deadline:
			t.Fatal("WatchHeads did not report the desk deleted within 10 s")
		}
		break
	}
	if page := mustRead(t, st.Log("eng"), 0, 10); len(page.Messages) != 0 {
		t.Fatalf("a read after the Watch reported another Store's DeleteDesk shows %d rows of the deleted desk (the first: %q)", len(page.Messages), page.Messages[0].Content)
	}
}
