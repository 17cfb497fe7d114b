package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

// readDesk returns every row of desk, oldest first.
func readDesk(t *testing.T, st *pgstore.Store, desk string) []transcript.Message {
	t.Helper()
	page := mustRead(t, st.Log(desk), 0, 100_000)
	slices.Reverse(page.Messages)
	return page.Messages
}

// deskHead returns desk's head as transcript_desks holds it; 0 for a desk it does not hold.
func deskHead(t *testing.T, pool *pgxpool.Pool, desk string) int64 {
	t.Helper()
	var head int64
	if err := pool.QueryRow(t.Context(), `SELECT coalesce(max(head), 0) FROM transcript_desks WHERE name = $1`, desk).Scan(&head); err != nil {
		t.Fatal(err)
	}
	return head
}

// TestKeyRaceAcrossStores: two Stores, each with a pool of its own, over one database, as
// two processes would be, append one key from 8 goroutines each, then one batch of keyed
// rows: each key is stored once, every caller gets the same row back, and the head counts
// only the rows stored.
func TestKeyRaceAcrossStores(t *testing.T) {
	t.Parallel()
	first, dsn := openStore(t)
	second, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Close() })
	stores := []*pgstore.Store{first, second}
	ctx := t.Context()
	const perStore = 8
	m := transcript.Message{Key: "raced", Author: alice, Content: "one of many"}

	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		got   [2 * perStore]transcript.Message
		errs  [2 * perStore]error
	)
	for w := range 2 * perStore {
		wg.Go(func() {
			<-start
			got[w], errs[w] = stores[w%2].Append(ctx, "eng", m)
		})
	}
	close(start)
	wg.Wait()
	for w := range got {
		if errs[w] != nil {
			t.Fatalf("append %d (store %d): %v", w, w%2, errs[w])
		}
		if diff := cmp.Diff(got[0], got[w]); diff != "" {
			t.Errorf("append %d (store %d) returned another row than append 0 (-0 +%d):\n%s", w, w%2, w, diff)
		}
	}
	if rows := readDesk(t, first, "eng"); len(rows) != 1 || !cmp.Equal(rows[0], got[0]) {
		t.Errorf("the desk holds %+v, want the one row every append returned: %+v", rows, got[0])
	}

	batch := []transcript.Message{
		{Key: "b1", Author: alice, Content: "first of the batch"},
		{Key: "b2", Parent: transcript.BatchParent(0), Author: bot, Content: "a reply in the batch"},
		m, // present already: skipped
	}
	start = make(chan struct{})
	var batchErrs [2 * perStore]error
	for w := range 2 * perStore {
		wg.Go(func() {
			<-start
			batchErrs[w] = stores[w%2].AppendBatch(ctx, "eng", batch)
		})
	}
	close(start)
	wg.Wait()
	for w, err := range batchErrs {
		if err != nil {
			t.Errorf("batch %d (store %d): %v", w, w%2, err)
		}
	}
	var summary []string
	for _, r := range readDesk(t, second, "eng") {
		summary = append(summary, fmt.Sprintf("%d<-%d %s", r.Seq, r.Parent, r.Key))
	}
	if want := []string{"1<-0 raced", "2<-0 b1", "3<-2 b2"}; !slices.Equal(summary, want) {
		t.Errorf("the desk after the batches: %v, want %v", summary, want)
	}
	if h := deskHead(t, connect(t, dsn), "eng"); h != 3 {
		t.Errorf("head %d, want 3", h)
	}
}

// TestKeyTakenBehindTheLock: a key inserted by a writer that does not take the desk's lock,
// in a transaction still open when an append looks for its key, makes the append's insert
// wait on the (desk, key) index until that transaction commits. Then a root's insert, made
// conditional on the key's absence, finds it and reads the row; a reply's, whose lookup had
// not found it, violates the index, and the append is tried again and finds it. Either way
// the key is decided as any present key: the same message returns that row, another
// message is a conflict, a batch skips it; and the head counts only the rows the store
// appended.
func TestKeyTakenBehindTheLock(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	pool, monitor := connect(t, dsn), connect(t, dsn)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "first"}); err != nil {
		t.Fatal(err)
	}
	// behind runs do while another transaction holds, uncommitted, a row of desk eng with Seq
	// seq, parent and key, by alice, which commits once do waits on it.
	behind := func(seq, parent int64, key, content string, do func() error) error {
		t.Helper()
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx)
		if _, err := tx.Exec(ctx, `INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, key)
			VALUES ('eng', $1, $2, $3, $4, $5, $6, $7, $8)`, seq, parent, int16(alice.Kind), alice.ID, alice.Label, content, time.Now(), key); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- do() }()
		waitForLockWaiters(t, monitor, 1)
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		return <-done
	}

	for _, c := range []struct {
		name   string
		seq    int64
		parent transcript.Sequence
	}{{"a root", 100, 0}, {"a reply to a stored row", 101, 1}} {
		key := fmt.Sprint("same-", c.seq)
		m := transcript.Message{Key: key, Parent: c.parent, Author: alice, Content: "the same message"}
		var got transcript.Message
		err := behind(c.seq, int64(c.parent), key, m.Content, func() (err error) {
			got, err = st.Append(ctx, "eng", m)
			return err
		})
		if err != nil || got.Seq != transcript.Sequence(c.seq) || got.Key != key || got.Parent != c.parent {
			t.Errorf("%s whose key was taken behind it by the same message: %+v, %v; want row %d", c.name, got, err, c.seq)
		}

		key = fmt.Sprint("other-", c.seq)
		m = transcript.Message{Key: key, Parent: c.parent, Author: alice, Content: "this message"}
		err = behind(c.seq+10, int64(c.parent), key, "another message", func() error {
			_, err := st.Append(ctx, "eng", m)
			return err
		})
		var ke *transcript.KeyConflictError
		if !errors.As(err, &ke) || ke.Seq != transcript.Sequence(c.seq+10) || errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s whose key was taken behind it by another message: %v, want a conflict with row %d", c.name, err, c.seq+10)
		}
	}

	err := behind(102, 0, "batched", "in the batch", func() error {
		return st.AppendBatch(ctx, "eng", []transcript.Message{
			{Author: alice, Content: "new"},
			{Key: "batched", Author: alice, Content: "in the batch"},
			{Parent: transcript.BatchParent(0), Author: bot, Content: "a reply to the new row"},
		})
	})
	if err != nil {
		t.Fatalf("AppendBatch with a key taken behind it: %v", err)
	}
	var summary []string
	for _, r := range readDesk(t, st, "eng") {
		summary = append(summary, fmt.Sprintf("%d<-%d %s", r.Seq, r.Parent, r.Key))
	}
	want := []string{"1<-0 ", "2<-0 ", "3<-2 ", "100<-0 same-100", "101<-1 same-101", "102<-0 batched", "110<-0 other-100", "111<-1 other-101"}
	if !slices.Equal(summary, want) {
		t.Errorf("the desk: %v, want %v", summary, want)
	}
	if h := deskHead(t, pool, "eng"); h != 3 {
		t.Errorf("head %d, want 3: the rows the store appended", h)
	}
}

// TestKeyedBatchParents: a batch that skips present rows numbers its new rows
// consecutively, and a plain Parent naming a new row of the batch by its Seq finds that
// row, as settled (its audience too), past the skipped ones.
func TestKeyedBatchParents(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	present := []transcript.Message{
		{Key: "a", Author: alice, Content: "a"},
		{Key: "b", Author: alice, Content: secret + " b", Audience: []transcript.Author{triage}},
	}
	if err := st.AppendBatch(ctx, "eng", present); err != nil {
		t.Fatal(err)
	}
	err := st.AppendBatch(ctx, "eng", []transcript.Message{
		present[0], // skipped: row 1
		{Key: "x", Author: alice, Content: secret + " x", Audience: []transcript.Author{review}}, // row 3
		present[1], // skipped: row 2
		{Parent: 3, Author: review, Content: "re x"},                         // row 4, into the aside x
		{Parent: transcript.BatchParent(2), Author: triage, Content: "re b"}, // row 5, into the aside b
		{Parent: 4, Author: alice, Content: "re re x"},                       // row 6
	})
	if err != nil {
		t.Fatal(err)
	}
	var summary []string
	for _, r := range readDesk(t, st, "eng") {
		var readers []string
		for _, a := range r.Audience {
			readers = append(readers, a.String())
		}
		summary = append(summary, fmt.Sprintf("%d<-%d %s [%s]", r.Seq, r.Parent, r.Key, strings.Join(readers, " ")))
	}
	want := []string{
		"1<-0 a []",
		"2<-0 b [agent:triage]",
		"3<-0 x [agent:review]",
		"4<-3  [person:alice]",
		"5<-2  [person:alice]",
		"6<-4  [agent:review]",
	}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Errorf("the desk (-want +got):\n%s", diff)
	}
	// A plain Parent must still be older than the row it would be: row 8 here, not 9.
	err = st.AppendBatch(ctx, "eng", []transcript.Message{present[0], {Author: alice, Content: "7"}, {Parent: 8, Author: alice, Content: "8"}})
	checkRejected(t, "a plain parent naming the row itself past a skipped one", err, pgstore.ErrParent, "parent 8", 2)
}

// TestKeyRefusals: a key repeated in one batch is an *AppendError matching
// pgstore.ErrDuplicateKey and transcript.ErrInvalidMessage, naming both messages, sent
// nowhere; a conflict in a batch names the message and the stored row, matches
// transcript.ErrKeyConflict and not ErrInvalidMessage, and quotes no content; and a message
// refused for another reason is refused so even when its key is present.
func TestKeyRefusals(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	stored, err := st.Append(ctx, "eng", transcript.Message{Key: "k", Author: alice, Content: secret})
	if err != nil {
		t.Fatal(err)
	}
	err = st.AppendBatch(ctx, "eng", []transcript.Message{{Key: "k2", Author: alice, Content: "x"}, {Author: bot, Content: "y"}, {Key: "k2", Author: alice, Content: "x"}})
	checkRejected(t, "one key twice", err, pgstore.ErrDuplicateKey, "key \"k2\" is message 0's too", 2)

	err = st.AppendBatch(ctx, "eng", []transcript.Message{{Author: bot, Content: "new"}, {Key: "k", Author: alice, Content: secret + " changed"}})
	var (
		ae *pgstore.AppendError
		ke *transcript.KeyConflictError
	)
	switch {
	case !errors.As(err, &ae) || ae.Index != 1 || ae.Desk != "eng":
		t.Errorf("a conflict in a batch: %v, want a *pgstore.AppendError naming message 1", err)
	case !errors.As(err, &ke) || ke.Seq != stored.Seq || ke.Key != "k":
		t.Errorf("a conflict in a batch: %v, want a *transcript.KeyConflictError naming key k and row %d", err, stored.Seq)
	case !errors.Is(err, transcript.ErrKeyConflict) || errors.Is(err, transcript.ErrInvalidMessage):
		t.Errorf("a conflict in a batch: %v, want it to match ErrKeyConflict and not ErrInvalidMessage", err)
	}
	checkNoSecret(t, "a conflict in a batch", err)

	_, err = st.Append(ctx, "eng", transcript.Message{Key: "k", Parent: 9, Author: alice, Content: secret})
	checkRejected(t, "a present key with a missing parent", err, pgstore.ErrParent, "parent 9", -1)
	if h := deskHead(t, connect(t, dsn), "eng"); h != 1 {
		t.Errorf("head %d after the refusals, want 1", h)
	}
}

// TestLookupKeys: LookupKeys finds rows across its chunks, skips keys no row can hold,
// takes repeated keys, hands out rows the caller may change, and takes a million keys.
func TestLookupKeys(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	const n = 2*pgstore.KeyLookupChunk + 17
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		msgs[i] = transcript.Message{Key: fmt.Sprintf("key-%d", i), Author: alice, Content: fmt.Sprint(i)}
		if i%100 == 0 {
			msgs[i].Audience = []transcript.Author{triage, bot}
		}
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	rows := readDesk(t, st, "eng")
	want := make(map[string]transcript.Message, n)
	for _, r := range rows {
		want[r.Key] = r
	}
	keys := []string{"", "a\x00b", "\xff", "missing"}
	for i := range n {
		keys = append(keys, msgs[n-1-i].Key) // newest first, across every chunk
	}
	keys = append(keys, msgs[0].Key, msgs[n/2].Key) // repeated
	got, err := st.LookupKeys(ctx, "eng", keys)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("LookupKeys (-read +looked up):\n%s", diff)
	}
	got["key-0"].Audience[0].Label = "scribbled"
	again, err := st.LookupKeys(ctx, "eng", []string{"key-0", "key-100"})
	if err != nil || !cmp.Equal(again["key-0"], want["key-0"]) {
		t.Errorf("LookupKeys after the caller changed an audience it returned: %+v, %v", again["key-0"], err)
	}
	for _, other := range []string{"ops", "", "e\x00g", "e\xffg"} {
		if got, err := st.LookupKeys(ctx, other, keys); err != nil || got == nil || len(got) != 0 {
			t.Errorf("LookupKeys of desk %q, which holds no row: %v, %v; want an empty map", other, got, err)
		}
	}

	million := make([]string, 1_000_000)
	for i := range million {
		million[i] = fmt.Sprintf("key-%d", i*7)
	}
	start := time.Now()
	got, err = st.LookupKeys(ctx, "eng", million)
	if err != nil {
		t.Fatal(err)
	}
	if wantN := (n + 6) / 7; len(got) != wantN {
		t.Errorf("LookupKeys of a million keys found %d rows, want %d", len(got), wantN)
	}
	t.Logf("LookupKeys of %d keys, %d found: %v", len(million), len(got), time.Since(start))

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := st.LookupKeys(cancelled, "eng", keys); !errors.Is(err, context.Canceled) {
		t.Errorf("LookupKeys with a cancelled ctx: %v, want context.Canceled", err)
	}
}

// TestSimpleProtocolKeys runs the key rules on a store whose pool uses the simple query
// protocol, where rows are decoded with Scan.
func TestSimpleProtocolKeys(t *testing.T) {
	t.Parallel()
	dsn := withParam(newDatabase(t), "default_query_exec_mode", "simple_protocol")
	st, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storetest.KeyRule(t, storetest.DeskOf(st, "eng"))
	found, err := st.LookupKeys(t.Context(), "eng", []string{"msg-1", "aside-2", "missing"})
	if err != nil || len(found) != 2 || found["aside-2"].Seq != 2 || len(found["aside-2"].Audience) != 1 {
		t.Errorf("LookupKeys: %+v, %v; want rows 1 and 2", found, err)
	}
}
