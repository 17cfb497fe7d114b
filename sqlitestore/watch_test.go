package sqlitestore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sqlitestore"
)

// reportWithin is how soon after a commit, by any process, Watch must report its desk: a
// bound a loaded machine keeps, not the poll's interval.
const reportWithin = 5 * time.Second

var (
	watchAuthor = transcript.Person("ana", "Ana")
	watchBot    = transcript.Agent("bot", "Bot")
)

// openAt opens a Store on the file at path, closed when t ends.
func openAt(t *testing.T, path string, opts ...sqlitestore.Option) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), path, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// watch starts a Watch on st for the rest of t, failing t if it cannot.
func watch(t *testing.T, st *sqlitestore.Store) <-chan string {
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

// TestWatchAcrossStores: two Stores on one file, standing in for two processes: a Watch on
// one reports, within a second, every commit through the other (found by its poll) and
// through itself: the desk's name, once a commit, nothing else.
func TestWatchAcrossStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	watcher, writer := openAt(t, path), openAt(t, path)
	ctx := t.Context()
	names := watch(t, watcher)
	for i, step := range []struct {
		st    *sqlitestore.Store
		desk  string
		batch []transcript.Message // one: Append
	}{
		{writer, "eng", []transcript.Message{{Author: watchAuthor, Content: "a root"}}},
		{writer, "ops", []transcript.Message{{Author: watchAuthor, Content: "a keyed root", Key: "k1"}}},
		{writer, "eng", []transcript.Message{{Parent: 1, Author: watchBot, Content: "a reply"}}},
		{writer, "ops", []transcript.Message{
			{Author: watchAuthor, Content: "a batch"},
			{Parent: transcript.BatchParent(0), Author: watchBot, Content: "its reply"},
		}},
		{watcher, "eng", []transcript.Message{{Author: watchBot, Content: "through the watching store"}}},
		{writer, "eng", []transcript.Message{{Author: watchBot, Content: "through the other again"}}},
		{watcher, "new", []transcript.Message{{Author: watchBot, Content: "a new desk, through the watching store"}}},
	} {
		var err error
		if len(step.batch) == 1 {
			_, err = step.st.Append(ctx, step.desk, step.batch[0])
		} else {
			err = step.st.AppendBatch(ctx, step.desk, step.batch)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got := nextName(t, names, reportWithin); got != step.desk {
			t.Errorf("step %d: Watch gave %q, want %q", i, got, step.desk)
		}
	}
}

// TestWatchOwnAppendsAtOnce: an append through the Store that watches is reported without
// waiting for the poll, here an hour away.
func TestWatchOwnAppendsAtOnce(t *testing.T) {
	st := openAt(t, filepath.Join(t.TempDir(), "desk.db"), sqlitestore.WithWatchInterval(time.Hour))
	names := watch(t, st)
	for _, d := range []string{"eng", "ops", "eng"} {
		if _, err := st.Append(t.Context(), d, transcript.Message{Author: watchAuthor, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
		if got := nextName(t, names, reportWithin); got != d {
			t.Errorf("Watch gave %q, want %q", got, d)
		}
	}
}

// TestWatchOnlyCommits: a refused append and replays of a key, which commit nothing, are
// not reported: after them and an append to another desk, that desk is the next name.
func TestWatchOnlyCommits(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	watcher, writer := openAt(t, path), openAt(t, path)
	ctx := t.Context()
	keyed := transcript.Message{Author: watchAuthor, Content: "first", Key: "once"}
	if _, err := writer.Append(ctx, "eng", keyed); err != nil {
		t.Fatal(err)
	}
	for _, st := range []*sqlitestore.Store{watcher, writer} {
		names := watch(t, st)
		if _, err := st.Append(ctx, "eng", transcript.Message{Parent: 99, Author: watchBot, Content: "to no row"}); !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Fatalf("Append replying to a row that does not exist: %v, want ErrInvalidMessage", err)
		}
		if _, err := writer.Append(ctx, "eng", keyed); err != nil {
			t.Fatalf("replay: %v", err)
		}
		if err := watcher.AppendBatch(ctx, "eng", []transcript.Message{keyed}); err != nil {
			t.Fatalf("replay in a batch: %v", err)
		}
		time.Sleep(2 * sqlitestore.DefaultWatchInterval) // a poll or two, which find nothing
		if _, err := writer.Append(ctx, "marker", transcript.Message{Author: watchBot, Content: "after the refusal and the replays"}); err != nil {
			t.Fatal(err)
		}
		if got := nextName(t, names, reportWithin); got != "marker" {
			t.Errorf("after a refused append and replays to eng, then an append to marker: Watch gave %q, want marker", got)
		}
	}
}

// TestWatchEnds: a Watch's channel is closed once its ctx is done or its Store closed;
// Watch after Close is ErrClosed, and with a done ctx, ctx's error.
func TestWatchEnds(t *testing.T) {
	st := openAt(t, filepath.Join(t.TempDir(), "desk.db"))
	ctx, cancel := context.WithCancel(t.Context())
	canceled, err := st.Watch(ctx)
	if err != nil {
		t.Fatal(err)
	}
	closed := watch(t, st)
	cancel()
	awaitClosed(t, canceled, 10*time.Second)
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: watchAuthor, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if got := nextName(t, closed, reportWithin); got != "eng" {
		t.Errorf("the other Watch gave %q, want eng", got)
	}
	if _, err := st.Watch(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Watch with a canceled ctx: %v, want context.Canceled", err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	awaitClosed(t, closed, 10*time.Second)
	if _, err := st.Watch(t.Context()); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Errorf("Watch after Close: %v, want ErrClosed", err)
	}
}

// helperDBEnv names the variable that makes TestHelperProcess a process appending to the
// file it names.
const helperDBEnv = "SQLITESTORE_WATCH_HELPER_DB"

// TestHelperProcess is not a test: run by TestWatchOtherProcess as a child process (the test
// binary itself), it opens the file named by SQLITESTORE_WATCH_HELPER_DB and appends to
// desk "from-child", as the transcript append command would.
func TestHelperProcess(t *testing.T) {
	path := os.Getenv(helperDBEnv)
	if path == "" {
		t.Skip("run by TestWatchOtherProcess only")
	}
	ctx := t.Context()
	st, err := sqlitestore.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Append(ctx, "from-child", transcript.Message{Author: watchBot, Content: "from another process"}); err != nil {
		t.Fatal(err)
	}
}

// TestWatchOtherProcess: rows another process appends to the file (the test binary run
// again as TestHelperProcess) are reported by this process's Watch within a second of the
// other process's end.
func TestWatchOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	st := openAt(t, path)
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: watchAuthor, Content: "before"}); err != nil {
		t.Fatal(err)
	}
	names := watch(t, st)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperDBEnv+"="+path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child process: %v\n%s", err, out)
	}
	if got := nextName(t, names, reportWithin); got != "from-child" {
		t.Errorf("Watch gave %q, want from-child", got)
	}
}

// TestHeadAcrossStores: Head tells a desk's newest row committed by another Store on the
// file at once, without waiting for a Watch's poll (here an hour away); 0 for a desk that
// holds none.
func TestHeadAcrossStores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	reader, writer := openAt(t, path, sqlitestore.WithWatchInterval(time.Hour)), openAt(t, path)
	watch(t, reader)
	if head, err := reader.Head(t.Context(), "eng"); head != 0 || err != nil {
		t.Fatalf("Head of a desk with no row: %d, %v; want 0, nil", head, err)
	}
	for i := 1; i <= 3; i++ {
		m, err := writer.Append(t.Context(), "eng", transcript.Message{Author: watchAuthor, Content: "a root"})
		if err != nil {
			t.Fatal(err)
		}
		if head, err := reader.Head(t.Context(), "eng"); head != m.Seq || err != nil {
			t.Fatalf("Head after the other Store's append %d: %d, %v; want %d, nil", i, head, err, m.Seq)
		}
	}
	if head, err := reader.Head(t.Context(), "ops"); head != 0 || err != nil {
		t.Fatalf("Head of another desk: %d, %v; want 0, nil", head, err)
	}
	reader.Close()
	if _, err := reader.Head(t.Context(), "eng"); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Fatalf("Head after Close: %v, want ErrClosed", err)
	}
}

// TestWatchHeads: WatchHeads reports, with each desk that moved, its newest Seq: an
// append through the watching Store at once, one through another Store on the file at the
// next poll, and a deleted desk as 0.
func TestWatchHeads(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	watcher, writer := openAt(t, path, sqlitestore.WithWatchInterval(20*time.Millisecond)), openAt(t, path)
	ctx := t.Context()
	heads, err := watcher.WatchHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	next := func(want map[string]transcript.Sequence) {
		t.Helper()
		got := map[string]transcript.Sequence{}
		deadline := time.After(reportWithin)
		for !reported(got, want) { // a head may come before the newest: the append's push, then the poll's
			select {
			case m, ok := <-heads:
				if !ok {
					t.Fatal("the WatchHeads channel was closed")
				}
				for d, h := range m {
					got[d] = h
				}
			case <-deadline:
				t.Fatalf("WatchHeads gave %v within %v, want %v", got, reportWithin, want)
			}
		}
	}
	for range 2 {
		if _, err := watcher.Append(ctx, "eng", transcript.Message{Author: watchAuthor, Content: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	next(map[string]transcript.Sequence{"eng": 2})
	if _, err := writer.Append(ctx, "ops", transcript.Message{Author: watchAuthor, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	next(map[string]transcript.Sequence{"ops": 1})
	if _, err := writer.DeleteDesk(ctx, "eng", false); err != nil {
		t.Fatal(err)
	}
	next(map[string]transcript.Sequence{"eng": 0})
}

// reported reports whether got holds every desk of want at its head.
func reported(got, want map[string]transcript.Sequence) bool {
	for d, h := range want {
		if g, ok := got[d]; !ok || g != h {
			return false
		}
	}
	return true
}

// TestWatchHeadsDeskMadeAnew: a desk another Store deletes and makes anew to its old head
// comes as 0 and then with its new head in a later value, when the watching Store's append
// reports the new desk first (its push, before any poll) and when a poll does.
func TestWatchHeadsDeskMadeAnew(t *testing.T) {
	for _, by := range []string{"push", "poll"} {
		t.Run(by, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "desk.db")
			interval := time.Hour // no poll but the first
			if by == "poll" {
				interval = 50 * time.Millisecond
			}
			watcher, writer := openAt(t, path, sqlitestore.WithWatchInterval(interval)), openAt(t, path)
			ctx := t.Context()
			fill := func(content string) {
				t.Helper()
				for range 2 {
					if _, err := writer.Append(ctx, "eng", transcript.Message{Author: watchAuthor, Content: content}); err != nil {
						t.Fatal(err)
					}
				}
			}
			fill("the first desk")
			heads, err := watcher.WatchHeads(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := writer.DeleteDesk(ctx, "eng", false); err != nil {
				t.Fatal(err)
			}
			fill("the second desk")
			want := []transcript.Sequence{0, 2} // in order; a poll between the new rows may give 1 between them
			if by == "push" {
				if _, err := watcher.Append(ctx, "eng", transcript.Message{Author: watchAuthor, Content: "hi"}); err != nil {
					t.Fatal(err)
				}
				want = []transcript.Sequence{0, 3}
			}
			var got []transcript.Sequence
			seen := 0
			deadline := time.After(reportWithin)
			for seen < len(want) {
				select {
				case m := <-heads:
					if h, ok := m["eng"]; ok {
						got = append(got, h)
						if h == want[seen] {
							seen++
						}
					}
				case <-deadline:
					t.Fatalf("WatchHeads gave eng at %v within %v, want %v", got, reportWithin, want)
				}
			}
			if got[0] != 0 {
				t.Errorf("WatchHeads gave eng at %v, want 0 first, then %v", got, want[1:])
			}
		})
	}
}

// TestWatchDigests: a WatchDigests on one Store reports the conversation of each digest
// stored through another Store on the file, standing in for another process: once a put,
// its conversation alone; and a digest stored after a redaction deleted the newest ones is
// reported too.
func TestWatchDigests(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	watcher, writer := openAt(t, path, sqlitestore.WithWatchInterval(200*time.Millisecond)), openAt(t, path)
	for _, desk := range []string{"eng", "ops"} {
		for range 6 {
			if _, err := writer.Append(ctx, desk, transcript.Message{Author: watchAuthor, Content: "a root"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := writer.Append(ctx, "ops", transcript.Message{Author: watchBot, Content: "a reply", Parent: 2}); err != nil {
		t.Fatal(err)
	}
	if err := writer.Log("eng").(digest.Store).PutDigest(ctx, transcript.Digest{Conversation: transcript.Conversation{Desk: "eng"}, Through: 1, Generation: 1, Digester: "test", Text: "before the watch"}, storetest.MustDigestRead(t, writer.Log("eng").(digest.Store))); err != nil {
		t.Fatal(err)
	}
	convs, err := watcher.WatchDigests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	put := func(c transcript.Conversation, through transcript.Sequence, generation int) {
		t.Helper()
		log := writer.Log(c.Desk).(digest.Store)
		d := transcript.Digest{Conversation: c, Through: through, Generation: generation, Digester: "test", Text: "SECRETWORD"}
		if err := log.PutDigest(ctx, d, storetest.MustDigestRead(t, log)); err != nil {
			t.Fatal(err)
		}
	}
	next := func(want transcript.Conversation) {
		t.Helper()
		select {
		case c, ok := <-convs:
			if !ok || c != want {
				t.Fatalf("WatchDigests sent %+v (open %v), want %+v", c, ok, want)
			}
		case <-time.After(reportWithin):
			t.Fatalf("no conversation within %v, want %+v", reportWithin, want)
		}
	}
	thread := transcript.Conversation{Desk: "ops", Thread: 2}
	put(thread, 7, 1)
	next(thread)
	put(transcript.Conversation{Desk: "eng"}, 3, 2)
	next(transcript.Conversation{Desk: "eng"})
	put(transcript.Conversation{Desk: "eng"}, 5, 3)
	next(transcript.Conversation{Desk: "eng"})

	// The redaction of row 3 deletes eng's two newest digests, the file's newest.
	if _, err := writer.Append(ctx, "eng", transcript.Message{Corrects: 3, Author: watchAuthor, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	put(transcript.Conversation{Desk: "ops"}, 5, 1)
	for deadline := time.After(reportWithin); ; { // with, perhaps, the conversations of the digests below
		select {
		case c := <-convs:
			if c == (transcript.Conversation{Desk: "ops"}) {
				return
			}
		case <-deadline:
			t.Fatalf("no report of ops' channel within %v", reportWithin)
		}
	}
}

// TestWatchDigestsAfterCorrection: a correction of an early row deletes at once every one of
// the many digest generations that fold it, the file's digests; the digest stored next,
// between the same two polls, is reported all the same.
func TestWatchDigestsAfterCorrection(t *testing.T) {
	const generations = 200
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	watcher, writer := openAt(t, path, sqlitestore.WithWatchInterval(time.Second)), openAt(t, path)
	rows := make([]transcript.Message, generations+1)
	for i := range rows {
		rows[i] = transcript.Message{Author: watchAuthor, Content: fmt.Sprintf("row %d", i+1)}
	}
	if err := writer.AppendBatch(ctx, "eng", rows); err != nil {
		t.Fatal(err)
	}
	channel := transcript.Conversation{Desk: "eng"}
	log := writer.Log("eng").(digest.Store)
	put := func(through transcript.Sequence, generation int) {
		t.Helper()
		d := transcript.Digest{Conversation: channel, Through: through, Generation: generation, Digester: "test", Text: fmt.Sprintf("through %d", through)}
		if err := log.PutDigest(ctx, d, storetest.MustDigestRead(t, log)); err != nil {
			t.Fatal(err)
		}
	}
	for g := 1; g < generations; g++ {
		put(transcript.Sequence(g+1), g)
	}
	convs, err := watcher.WatchDigests(ctx)
	if err != nil {
		t.Fatal(err)
	}
	await := func() {
		t.Helper()
		select {
		case c := <-convs:
			if c != channel {
				t.Fatalf("WatchDigests sent %+v, want %+v", c, channel)
			}
		case <-time.After(reportWithin):
			t.Fatalf("no report of %+v within %v", channel, reportWithin)
		}
	}
	// The newest generation's report follows a poll: the edit and the put below commit
	// well before the next one.
	put(generations+1, generations)
	await()

	if _, err := writer.Append(ctx, "eng", transcript.Message{Corrects: 2, Author: watchAuthor, Content: "row 2, edited"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := log.Digest(ctx, channel, 0); err != nil || ok {
		t.Fatalf("after the edit of row 2, eng's channel has a digest (%v, %v); want none", ok, err)
	}
	put(3, 1)
	await()
}
