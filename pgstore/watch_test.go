package pgstore_test

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

// reportWithin is how soon after a commit Watch must report its desk; reconnectWithin, how
// soon after a lost connection (a restart) it must report every desk.
const (
	reportWithin    = 5 * time.Second
	reconnectWithin = 20 * time.Second
)

// watch starts a Watch on st for the rest of t, failing t if it cannot.
func watch(t *testing.T, st *pgstore.Store) <-chan string {
	t.Helper()
	names, err := st.Watch(t.Context())
	if err != nil {
		t.Fatalf("Watch: %v", err)
	}
	return names
}

// nextName returns the next name on names, failing t if none comes within d.
func nextName(t *testing.T, names <-chan string, d time.Duration) string {
	t.Helper()
	select {
	case name, ok := <-names:
		if !ok {
			t.Fatal("the Watch channel was closed")
		}
		return name
	case <-time.After(d):
		t.Fatalf("no name within %v", d)
		return ""
	}
}

// awaitNames reads names until it has seen each of want, within d, and returns what it
// read (the names of other desks among them: Watch may report a desk spuriously).
func awaitNames(t *testing.T, names <-chan string, d time.Duration, want ...string) []string {
	t.Helper()
	deadline := time.After(d)
	var got []string
	missing := slices.Clone(want)
	for len(missing) > 0 {
		select {
		case name, ok := <-names:
			if !ok {
				t.Fatalf("the Watch channel was closed, having given %q; still missing %q", got, missing)
			}
			got = append(got, name)
			missing = slices.DeleteFunc(missing, func(m string) bool { return m == name })
		case <-deadline:
			t.Fatalf("within %v, Watch gave %q, not %q", d, got, missing)
		}
	}
	return got
}

// awaitClosed waits, at most d, for names to be closed, reading what comes before.
func awaitClosed(t *testing.T, names <-chan string, d time.Duration) {
	t.Helper()
	deadline := time.After(d)
	for {
		select {
		case _, ok := <-names:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("the Watch channel is still open %v later", d)
		}
	}
}

// openTwo opens two Stores on one new database, each with its pool, as two processes
// would, closed when t ends, and returns them with the database's address.
func openTwo(t *testing.T) (first, second *pgstore.Store, dsn string) {
	t.Helper()
	first, dsn = openStore(t)
	second, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	return first, second, dsn
}

// awaitListeners waits, at most 10 s, for n sessions of the pool's database to listen
// (their last statement a LISTEN: a Watch's, until it reconnects).
func awaitListeners(t *testing.T, pool *pgxpool.Pool, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var got int
		if err := pool.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d sessions listen, want %d", got, n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestWatchAcrossStores: two Stores, two pools, on one database, as two processes: a Watch
// on one reports every commit through the other, and through itself, within a second, by
// every way an append goes (a root, a keyed root, a reply, a batch): the desk's name, once
// a commit, in commit order, nothing else.
func TestWatchAcrossStores(t *testing.T) {
	t.Parallel()
	watcher, writer, _ := openTwo(t)
	ctx := t.Context()
	names := watch(t, watcher)
	for i, step := range []struct {
		st      *pgstore.Store
		desk    string
		message transcript.Message
		batch   []transcript.Message
	}{
		{writer, "eng", transcript.Message{Author: alice, Content: "a root"}, nil},
		{writer, "ops", transcript.Message{Author: alice, Content: "a keyed root", Key: "k1"}, nil},
		{writer, "eng", transcript.Message{Parent: 1, Author: bot, Content: "a reply"}, nil},
		{writer, "ops", transcript.Message{}, []transcript.Message{
			{Author: alice, Content: "a batch"},
			{Parent: transcript.BatchParent(0), Author: bot, Content: "its reply"},
		}},
		{writer, "eng", transcript.Message{}, []transcript.Message{
			{Parent: 2, Author: alice, Content: "a batch replying to a stored row", Key: "k2"},
		}},
		{watcher, "eng", transcript.Message{Author: bot, Content: "through the watching store"}, nil},
		{writer, strings.Repeat("é", transcript.MaxDeskLen), transcript.Message{Author: bot, Content: "a desk named in 200 bytes"}, nil},
	} {
		var err error
		if step.batch != nil {
			err = step.st.AppendBatch(ctx, step.desk, step.batch)
		} else {
			_, err = step.st.Append(ctx, step.desk, step.message)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := nextName(t, names, reportWithin); got != step.desk {
			t.Errorf("step %d: Watch gave %q, want %q", i, got, step.desk)
		}
	}
}

// TestWatchOnlyCommits: a name comes when its transaction commits, not before: an append
// held before its commit is reported after an append to another desk that committed
// meanwhile, and only once it commits; a refused append and a replay of a key that rolls
// back (a reply's, a batch's), are never reported, with the commit hook unset as in use.
// (A keyed root's replay commits and notifies, as Watch's documentation says.)
func TestWatchOnlyCommits(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "first", Key: "once"}); err != nil {
		t.Fatal(err)
	}
	names := watch(t, st)

	held := holdNextAppend(t, st)
	first := appendAsync(ctx, st, "eng", "held")
	<-held.reached
	if _, err := st.Append(ctx, "ops", transcript.Message{Author: bot, Content: "while eng is held"}); err != nil {
		t.Fatal(err)
	}
	if got := nextName(t, names, reportWithin); got != "ops" {
		t.Errorf("while an append to eng is held: Watch gave %q, want ops", got)
	}
	close(held.release)
	if res := <-first; res.err != nil {
		t.Fatal(res.err)
	}
	if got := nextName(t, names, reportWithin); got != "eng" {
		t.Errorf("after the held append committed: Watch gave %q, want eng", got)
	}
	pgstore.SetBeforeCommit(st, nil) // every append below takes its own way, one round trip or two
	if _, err := st.Append(ctx, "eng", transcript.Message{Parent: 1, Author: bot, Content: "a keyed reply", Key: "reply"}); err != nil {
		t.Fatal(err)
	}
	if got := nextName(t, names, reportWithin); got != "eng" {
		t.Errorf("after a keyed reply: Watch gave %q, want eng", got)
	}

	if _, err := st.Append(ctx, "eng", transcript.Message{Parent: 99, Author: bot, Content: "to no row"}); !errors.Is(err, pgstore.ErrParent) {
		t.Fatalf("Append replying to a row that does not exist: %v, want ErrParent", err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Parent: 1, Author: bot, Content: "a keyed reply", Key: "reply"}); err != nil {
		t.Fatalf("replay of a reply: %v", err)
	}
	batch := []transcript.Message{ // rows 1 and 3 again: the reply's parent is row 1 either way
		{Author: alice, Content: "first", Key: "once"},
		{Parent: transcript.BatchParent(0), Author: bot, Content: "a keyed reply", Key: "reply"},
	}
	if err := st.AppendBatch(ctx, "eng", batch); err != nil {
		t.Fatalf("replay in a batch: %v", err)
	}
	if _, err := st.Append(ctx, "marker", transcript.Message{Author: bot, Content: "after the refusal and the replays"}); err != nil {
		t.Fatal(err)
	}
	if got := nextName(t, names, reportWithin); got != "marker" {
		t.Errorf("after a refused append and replays to eng, then an append to marker: Watch gave %q, want marker", got)
	}
}

// TestWatchLongDeskName: a notification without a desk name, which an append sends for a
// desk whose name is too long for its payload (one an older version stored: no name
// transcript.ValidateDesk accepts is), is answered with every desk's name.
func TestWatchLongDeskName(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	for _, desk := range []string{"eng", "ops"} {
		if _, err := st.Append(ctx, desk, transcript.Message{Author: alice, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	names := watch(t, st)
	if _, err := connect(t, dsn).Exec(ctx, `SELECT pg_notify('transcript_desks', '')`); err != nil {
		t.Fatal(err)
	}
	awaitNames(t, names, reportWithin, "eng", "ops")
}

// TestWatchEnds: a Watch's channel is closed, and its connection, once its ctx is done or
// its Store closed; Watch after Close is ErrClosed, and with a done ctx, ctx's error.
func TestWatchEnds(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx, cancel := context.WithCancel(t.Context())
	canceled, err := st.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := watch(t, st)
	awaitListeners(t, pool, 2)
	cancel()
	awaitClosed(t, canceled, 10*time.Second)
	awaitListeners(t, pool, 1)
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if got := nextName(t, closed, reportWithin); got != "eng" {
		t.Errorf("the other Watch gave %q, want eng", got)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	awaitClosed(t, closed, 10*time.Second)
	awaitListeners(t, pool, 0)
	if _, err := st.Watch(t.Context()); !errors.Is(err, pgstore.ErrClosed) {
		t.Errorf("Watch after Close: %v, want ErrClosed", err)
	}
	other, _ := openStore(t)
	if _, err := other.Watch(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Watch with a canceled ctx: %v, want context.Canceled", err)
	}
}

// TestWatchPingsInSilence: a Watch that hears nothing for a while pings the server and goes
// on listening on the same connection: a wait that times out does not lose it. (Had it
// reconnected, it would report every desk, eng first.)
func TestWatchPingsInSilence(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "before"}); err != nil {
		t.Fatal(err)
	}
	pgstore.SetWatchPingAfter(st, 20*time.Millisecond)
	names := watch(t, st)
	time.Sleep(300 * time.Millisecond) // some 10 waits timed out, and as many pings
	if _, err := st.Append(ctx, "ops", transcript.Message{Author: alice, Content: "after the silence"}); err != nil {
		t.Fatal(err)
	}
	if got := nextName(t, names, reportWithin); got != "ops" {
		t.Errorf("after pings: Watch gave %q, want ops", got)
	}
}

// TestWatchReconnects: when a Watch's session is ended under it (pg_terminate_backend), it
// connects again and reports every desk, so that a commit while it was not listening is
// not missed, then reports commits as before.
func TestWatchReconnects(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "before"}); err != nil {
		t.Fatal(err)
	}
	names := watch(t, st)
	var ended bool
	if err := pool.QueryRow(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the Watch's session: %v, %v", ended, err)
	}
	if _, err := st.Append(ctx, "late", transcript.Message{Author: alice, Content: "while it reconnects"}); err != nil {
		t.Fatal(err)
	}
	awaitNames(t, names, reconnectWithin, "eng", "late")
	if _, err := st.Append(ctx, "after", transcript.Message{Author: alice, Content: "once it listens again"}); err != nil {
		t.Fatal(err)
	}
	awaitNames(t, names, reportWithin, "after")
}

// TestWatchSurvivesRestart: on a server of its own, restarted in immediate mode (pg_ctl
// restart -m immediate: every session cut at once), a Watch connects again once the server
// is back, reports every desk, and then the commits of another Store, as before.
func TestWatchSurvivesRestart(t *testing.T) {
	t.Parallel()
	server := pgtest.Own(t, "pgstore")
	ctx := t.Context()
	watcher, err := pgstore.Open(ctx, server.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { watcher.Close() })
	writer, err := pgstore.Open(ctx, server.DSN)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { writer.Close() })
	names := watch(t, watcher)
	for _, d := range []string{"eng", "ops"} {
		if _, err := writer.Append(ctx, d, transcript.Message{Author: alice, Content: "before the restart"}); err != nil {
			t.Fatal(err)
		}
		if got := nextName(t, names, reportWithin); got != d {
			t.Errorf("before the restart: Watch gave %q, want %q", got, d)
		}
	}

	if err := server.Restart(); err != nil {
		t.Fatal(err)
	}
	awaitNames(t, names, reconnectWithin, "eng", "ops")
	// The writer's pool finds its connections dead; a keyed append is safe to try again.
	deadline := time.Now().Add(reconnectWithin)
	for i := 0; ; i++ {
		_, err := writer.Append(ctx, "eng", transcript.Message{Author: alice, Content: "after the restart", Key: "after"})
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Append after the restart, %d attempts: %v", i+1, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	awaitNames(t, names, reportWithin, "eng")
	if _, err := writer.Append(ctx, "new", transcript.Message{Author: alice, Content: "a new desk"}); err != nil {
		t.Fatal(err)
	}
	awaitNames(t, names, reportWithin, "new")
}

// TestNotificationErrorIsNotTheAppends: the notification follows an append's COMMIT in the
// same round trip, so once the COMMIT has succeeded an error of the notification's is not
// the append's: Append and AppendBatch report success, the rows are stored, and the next
// append takes the next Seq on the same connection. With the notification made to fail,
// on every way an append commits: a root, a keyed root, a reply to a stored row (whose
// COMMIT goes with its insert in the second round trip), with the test's commit hook set,
// a root whose COMMIT goes in a round trip of its own, and a batch; then a keyed root's
// replay, whose transaction commits no change. In both query modes.
func TestNotificationErrorIsNotTheAppends(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"", "simple_protocol"} {
		t.Run("mode="+cmp.Or(mode, "default"), func(t *testing.T) {
			dsn := withPoolSize(newDatabase(t), 1) // one connection: a broken one would fail the next append
			if mode != "" {
				dsn = withParam(dsn, "default_query_exec_mode", mode)
			}
			st, err := pgstore.Open(t.Context(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			pgstore.SetNotifySQL(st, `SELECT 1 / (length($1::text) * 0)`) // division by zero
			ctx := t.Context()
			appends := []struct {
				name string
				msg  transcript.Message
				hold bool
			}{
				{"a root", transcript.Message{Author: alice, Content: "root"}, false},
				{"a keyed root", transcript.Message{Author: alice, Content: "keyed", Key: "k"}, false},
				{"a reply", transcript.Message{Parent: 1, Author: bot, Content: "reply"}, false},
				{"a root with its COMMIT apart", transcript.Message{Author: alice, Content: "apart"}, true},
			}
			for i, a := range appends {
				if a.hold {
					pgstore.SetBeforeCommit(st, func(context.Context, string, []transcript.Message) {})
				}
				got, err := st.Append(ctx, "eng", a.msg)
				if err != nil {
					t.Fatalf("%s: %v, want the append's success (it committed; only its notification failed)", a.name, err)
				}
				if want := transcript.Sequence(i + 1); got.Seq != want {
					t.Errorf("%s: Seq %d, want %d", a.name, got.Seq, want)
				}
			}
			pgstore.SetBeforeCommit(st, nil)
			if err := st.AppendBatch(ctx, "eng", []transcript.Message{{Author: bot, Content: "batch"}, {Author: bot, Content: "of two"}}); err != nil {
				t.Fatalf("a batch: %v", err)
			}
			if got, err := st.Append(ctx, "eng", appends[1].msg); err != nil || got.Seq != 2 {
				t.Fatalf("a replay of the keyed root: row %d, %v; want row 2 again", got.Seq, err)
			}
			rows := readDesk(t, st, "eng")
			if len(rows) != len(appends)+2 {
				t.Fatalf("the desk holds %d rows, want %d", len(rows), len(appends)+2)
			}
			if got, err := st.Append(ctx, "eng", transcript.Message{Author: bot, Content: "last"}); err != nil || int(got.Seq) != len(appends)+3 {
				t.Fatalf("the append after them: row %d, %v; want row %d", got.Seq, err, len(appends)+3)
			}
		})
	}
}

// TestHeadAfterAnotherStoresRedaction: Head tells a desk's newest row committed through
// another Store at once, without its notification; once it has told of a row above the
// last it told, a Log of the desk no longer answers from rows it read ahead before, so a
// row another Store redacted meanwhile comes erased. 0 for a desk that holds none.
func TestHeadAfterAnotherStoresRedaction(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	other, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	ctx := t.Context()
	if head, err := st.Head(ctx, "eng"); head != 0 || err != nil {
		t.Fatalf("Head of a desk with no row: %d, %v; want 0, nil", head, err)
	}
	for i := range 10 {
		if _, err := other.Append(ctx, "eng", transcript.Message{Author: alice, Content: fmt.Sprint("secret row ", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	if head, err := st.Head(ctx, "eng"); head != 10 || err != nil {
		t.Fatalf("Head after the other Store's appends: %d, %v; want 10, nil", head, err)
	}
	log := st.Log("eng")
	first := mustRead(t, log, 0, 4) // rows 10 to 7, and 6 to 4 read ahead
	if n, _ := pgstore.ReadAhead(log); n == 0 {
		t.Fatal("nothing read ahead: the test shows nothing")
	}
	redaction, err := other.Append(ctx, "eng", transcript.Message{Corrects: 5, Author: alice, Redacted: true})
	if err != nil {
		t.Fatal(err)
	}
	if head, err := st.Head(ctx, "eng"); head != redaction.Seq || err != nil {
		t.Fatalf("Head after the other Store's redaction: %d, %v; want %d, nil", head, err, redaction.Seq)
	}
	for _, m := range mustRead(t, log, first.Next, 3).Messages {
		if m.Seq == 5 && (m.Content != "" || !m.Redacted) {
			t.Fatalf("after Head told of the redaction, the Log answers row 5 as read before it: %q, redacted %v", m.Content, m.Redacted)
		}
	}
}

// TestWatchHeads: WatchHeads reports, with each desk that moved, its newest Seq: an append
// through the watching Store and through another Store, a deletion as 0, a desk deleted and
// made anew to its old head as 0 and then its head, in a later value; a name an older
// version notifies alone with the head it reads; and once its connection is lost, it closes
// the channel.
func TestWatchHeads(t *testing.T) {
	t.Parallel()
	watcher, writer, dsn := openTwo(t)
	pool := connect(t, dsn)
	ctx := t.Context()
	heads, err := watcher.WatchHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	add := func(st *pgstore.Store, desk string, n int) {
		t.Helper()
		for range n {
			if _, err := st.Append(ctx, desk, transcript.Message{Author: alice, Content: "hi"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// await reads values until desk came with each of want, in order (with other heads
	// between them, perhaps), and returns the other desks' last heads.
	await := func(desk string, want ...transcript.Sequence) map[string]transcript.Sequence {
		t.Helper()
		others := map[string]transcript.Sequence{}
		var got []transcript.Sequence
		seen := 0 // of want, in order
		deadline := time.After(reportWithin)
		for seen < len(want) {
			select {
			case m, ok := <-heads:
				if !ok {
					t.Fatalf("the WatchHeads channel was closed, having given %s at %v", desk, got)
				}
				for d, h := range m {
					if d == desk {
						got = append(got, h)
						if h == want[seen] {
							seen++
						}
					} else {
						others[d] = h
					}
				}
			case <-deadline:
				t.Fatalf("within %v, WatchHeads gave %s at %v, want %v in order", reportWithin, desk, got, want)
			}
		}
		return others
	}
	add(watcher, "eng", 2)
	await("eng", 2)
	add(writer, "ops", 1)
	if others := await("ops", 1); len(others) > 0 {
		t.Errorf("WatchHeads gave %v", others)
	}
	if _, err := writer.DeleteDesk(ctx, "ops", false); err != nil {
		t.Fatal(err)
	}
	await("ops", 0)
	if _, err := writer.DeleteDesk(ctx, "eng", false); err != nil {
		t.Fatal(err)
	}
	add(writer, "eng", 2)
	add(watcher, "eng", 1)
	await("eng", 0, 3)
	if _, err := pool.Exec(ctx, `SELECT pg_notify('transcript_desks', 'eng')`); err != nil { // an older version's
		t.Fatal(err)
	}
	await("eng", 3)

	var ended bool // the watch's last statement: its LISTEN, or its read of the head above
	if err := pool.QueryRow(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND (query LIKE 'LISTEN %' OR query LIKE 'SELECT head FROM transcript_desks %')`).Scan(&ended); err != nil || !ended {
		t.Fatalf("ending the WatchHeads session: %v, %v", ended, err)
	}
	deadline := time.After(reconnectWithin)
	for {
		select {
		case _, ok := <-heads:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatalf("the WatchHeads channel is still open %v after its session ended", reconnectWithin)
		}
	}
}

// TestWatchDigests: two Stores, two pools, on one database, as two processes: a
// WatchDigests on one reports each digest stored through the other, and through itself,
// within a second: its conversation, once a put, nothing else; a put refused (another fold
// stored the generation) is never reported.
func TestWatchDigests(t *testing.T) {
	t.Parallel()
	watcher, writer, _ := openTwo(t)
	ctx := t.Context()
	for i := range 6 {
		if _, err := writer.Append(ctx, "eng", transcript.Message{Author: alice, Content: fmt.Sprintf("root %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := writer.Append(ctx, "eng", transcript.Message{Parent: 2, Author: bot, Content: "a reply"}); err != nil {
		t.Fatal(err)
	}
	convs, err := watcher.WatchDigests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put := func(st *pgstore.Store, c transcript.Conversation, through transcript.Sequence, generation int) error {
		log := st.Log(c.Desk).(digest.Store)
		d := transcript.Digest{Conversation: c, Through: through, Generation: generation, Digester: "test", Text: "SECRETWORD"}
		return log.PutDigest(ctx, d, storetest.MustDigestRead(t, log))
	}
	channel, thread := transcript.Conversation{Desk: "eng"}, transcript.Conversation{Desk: "eng", Thread: 2}
	for i, step := range []struct {
		st         *pgstore.Store
		c          transcript.Conversation
		through    transcript.Sequence
		generation int
		refused    bool
	}{
		{writer, channel, 3, 1, false},
		{writer, thread, 7, 1, false},
		{writer, thread, 6, 1, true}, // generation 1 is stored; the next report must be the channel's
		{watcher, channel, 5, 2, false},
	} {
		err := put(step.st, step.c, step.through, step.generation)
		if step.refused {
			if !errors.Is(err, digest.ErrSuperseded) {
				t.Fatalf("step %d: %v, want it superseded", i, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		select {
		case c, ok := <-convs:
			if !ok || c != step.c {
				t.Errorf("step %d: WatchDigests gave %+v (open %v), want %+v", i, c, ok, step.c)
			}
		case <-time.After(reportWithin):
			t.Fatalf("step %d: no conversation within %v", i, reportWithin)
		}
	}
}
