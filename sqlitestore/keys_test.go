package sqlitestore

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// keyColumn returns how many rows of the file hold a NULL key and how many an empty one.
func keyColumn(t *testing.T, st *Store) (null, empty int) {
	t.Helper()
	err := st.readers.QueryRowContext(t.Context(), `SELECT count(*) FILTER (WHERE key IS NULL), count(*) FILTER (WHERE key = '') FROM messages`).Scan(&null, &empty)
	if err != nil {
		t.Fatal(err)
	}
	return null, empty
}

// TestMigrateFromV4 writes rows with the version 4 schema, which knew no keys, an aside
// among them, then opens the file: Open migrates it, every row reads back as it was (no
// Key), its key column is NULL, and the desks take keyed rows after their old ones, replays
// and conflicts decided against the new rows only.
func TestMigrateFromV4(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v4.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 4); err != nil || found != 0 {
		t.Fatalf("migrate to version 4: found %d, %v", found, err)
	}
	at := time.Date(2026, 5, 1, 9, 0, 0, 789_000, time.UTC)
	want := []transcript.Message{
		{Seq: 1, Author: opAuthor, Content: "deploy at noon?", At: at},
		{Seq: 2, Parent: 1, Author: opAuthor, Content: "between us", At: at.Add(time.Second), Audience: []transcript.Author{triageAgent}},
		{Seq: 3, Parent: 2, Author: triageAgent, Content: "agreed", At: at.Add(2 * time.Second), Audience: []transcript.Author{opAuthor}},
	}
	for _, stmt := range []string{
		`INSERT INTO desks (id, name) VALUES (1, 'eng')`,
		`INSERT INTO authors (id, kind, ident, label) VALUES (1, 1, '', ''), (2, 3, 'triage', 'Triage')`,
		`INSERT INTO audiences (id, members) VALUES (1, '[{"kind":3,"ident":"triage","label":"Triage"}]'), (2, '[{"kind":1,"ident":"","label":""}]')`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range want {
		author, audience := []int{1, 1, 2}[i], []any{nil, 1, 2}[i]
		if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, audience, content, at_us) VALUES (1, ?, ?, ?, ?, ?, ?)`,
			int64(m.Seq), int64(m.Parent), author, audience, m.Content, m.At.UnixMicro()); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	st, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of a version 4 database: %v", err)
	}
	defer st.Close()
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after the migration (-want +got):\n%s", diff)
	}
	if null, empty := keyColumn(t, st); null != len(want) || empty != 0 {
		t.Errorf("after the migration %d rows have a NULL key and %d an empty one, want %d and 0", null, empty, len(want))
	}
	keyed := transcript.Message{Key: "slack:1712345678.000100", Parent: 3, Author: triageAgent, Content: "in the aside"}
	first, err := st.Append(ctx, "eng", keyed)
	if err != nil || first.Seq != 4 || first.Key != keyed.Key || !cmp.Equal(first.Audience, []transcript.Author{opAuthor}) {
		t.Fatalf("keyed Append after the migration: %+v, %v; want row 4 with its key, audience [operator]", first, err)
	}
	if again, err := st.Append(ctx, "eng", keyed); err != nil || !cmp.Equal(again, first) {
		t.Errorf("replay after the migration: %+v, %v; want %+v", again, err, first)
	}
	keyed.Content = "changed"
	if _, err := st.Append(ctx, "eng", keyed); !errors.Is(err, transcript.ErrKeyConflict) {
		t.Errorf("conflict after the migration: %v, want ErrKeyConflict", err)
	}
	if diff := cmp.Diff(append(want, first), readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after the keyed appends (-want +got):\n%s", diff)
	}
	got, err := st.LookupKeys(ctx, "eng", []string{first.Key, ""})
	if err != nil || !cmp.Equal(got, map[string]transcript.Message{first.Key: first}) {
		t.Errorf("LookupKeys after the migration: %v, %v", got, err)
	}
}

// TestKeyColumnNullWithoutKey: a row without a key stores NULL, never ”, and the schema
// refuses an empty key and a key twice in a desk even from outside the package.
func TestKeyColumnNullWithoutKey(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	msgs := []transcript.Message{
		{Author: opAuthor, Content: "no key"},
		{Author: opAuthor, Content: "a key", Key: "k1"},
		{Author: opAuthor, Content: "no key either"},
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "single, no key"}); err != nil {
		t.Fatal(err)
	}
	if null, empty := keyColumn(t, st); null != 3 || empty != 0 {
		t.Errorf("%d rows with a NULL key and %d with an empty one, want 3 and 0", null, empty)
	}
	for _, stmt := range []string{
		`INSERT INTO messages (desk, seq, parent, author, content, at_us, key) VALUES (1, 10, 0, 1, 'x', 0, '')`,
		`INSERT INTO messages (desk, seq, parent, author, content, at_us, key) VALUES (1, 10, 0, 1, 'x', 0, 'k1')`,
	} {
		if _, err := st.writer.ExecContext(ctx, stmt); err == nil {
			t.Errorf("%s: the schema took it", stmt)
		}
	}
	other := transcript.Message{Author: opAuthor, Content: "the same key, another desk", Key: "k1"}
	if m, err := st.Append(ctx, "sales", other); err != nil || m.Seq != 1 {
		t.Errorf("a key of desk eng appended to desk sales: %+v, %v; want row 1", m, err)
	}
}

// TestBatchKeyTwice: one key on two messages of a batch is refused before anything is
// written, naming both messages, however the two differ, and also when the key is present.
func TestBatchKeyTwice(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	a := transcript.Message{Author: opAuthor, Content: "a", Key: "a"}
	if _, err := st.Append(ctx, "eng", a); err != nil {
		t.Fatal(err)
	}
	for _, batch := range [][]transcript.Message{
		{{Author: opAuthor, Content: "b", Key: "b"}, {Author: opAuthor, Content: "x"}, {Author: opAuthor, Content: "b", Key: "b"}},
		{{Author: opAuthor, Content: "c"}, {Author: opAuthor, Content: "b", Key: "b"}, {Author: reviewAgent, Content: "other", Key: "b"}},
		{a, {Author: opAuthor, Content: "c"}, a},
	} {
		err := st.AppendBatch(ctx, "eng", batch)
		var appendErr *AppendError
		if !errors.As(err, &appendErr) || !errors.Is(err, transcript.ErrInvalidMessage) || appendErr.Index != 2 {
			t.Errorf("a key twice: %v, want an *AppendError for message 2 matching ErrInvalidMessage", err)
		} else if msg := err.Error(); !strings.Contains(msg, "message 2") || !strings.Contains(msg, "message 0's") && !strings.Contains(msg, "message 1's") {
			t.Errorf("a key twice: %q does not name both messages", msg)
		}
		if rows := readDesk(t, st, "eng"); len(rows) != 1 {
			t.Errorf("after a batch with a key twice the desk holds %d rows, want 1", len(rows))
		}
	}
}

// TestKeyConflictError: a conflict is an *AppendError naming the message, wrapping the
// *transcript.KeyConflictError, matching ErrKeyConflict and not ErrInvalidMessage; the
// batch around it writes nothing, and the conflict is found after the checks a new row
// gets (a missing parent is invalid, not a conflict).
func TestKeyConflictError(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	stored, err := st.Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "secret one", Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	batch := []transcript.Message{
		{Author: opAuthor, Content: "new"},
		{Author: opAuthor, Content: "secret two", Key: "k"},
	}
	err = st.AppendBatch(ctx, "eng", batch)
	var (
		appendErr *AppendError
		conflict  *transcript.KeyConflictError
	)
	switch {
	case !errors.As(err, &appendErr) || appendErr.Index != 1:
		t.Errorf("conflict in a batch: %v, want an *AppendError for message 1", err)
	case !errors.As(err, &conflict) || conflict.Key != "k" || conflict.Seq != stored.Seq:
		t.Errorf("conflict in a batch: %v, want a *transcript.KeyConflictError for key k, row %d", err, stored.Seq)
	case errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, transcript.ErrKeyConflict):
		t.Errorf("conflict in a batch: %v matches ErrInvalidMessage, or not ErrKeyConflict", err)
	case strings.Contains(err.Error(), "secret"):
		t.Errorf("conflict in a batch quotes content: %q", err)
	}
	if rows := readDesk(t, st, "eng"); len(rows) != 1 {
		t.Errorf("after the conflict the desk holds %d rows, want 1", len(rows))
	}
	_, err = st.Append(ctx, "eng", transcript.Message{Parent: 7, Author: opAuthor, Content: "secret one", Key: "k"})
	if !errors.Is(err, transcript.ErrInvalidMessage) || errors.Is(err, transcript.ErrKeyConflict) {
		t.Errorf("a replay naming a missing parent: %v, want ErrInvalidMessage", err)
	}
}

// TestBatchSkipsPresentRows: a batch that extends an earlier one stores only its new rows,
// numbered from the head on, with parents naming skipped rows (by BatchParent, or by a
// sequence of the batch's new rows) resolved to the stored rows; a batch that is all
// present, across several lookup chunks, writes nothing.
func TestBatchSkipsPresentRows(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	n := keyLookupChunk*2 + 100 // 4,100: (n-49)%3 == (n-1)%3 == 1
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		msgs[i] = transcript.Message{Author: opAuthor, Content: fmt.Sprint("row ", i), Key: fmt.Sprint("key-", i)}
		if i%3 == 1 {
			msgs[i].Parent = transcript.BatchParent(i - 1)
		}
	}
	first := msgs[:n-50]
	if err := st.AppendBatch(ctx, "eng", first); err != nil {
		t.Fatal(err)
	}
	if err := st.AppendBatch(ctx, "eng", first); err != nil {
		t.Fatalf("re-import: %v", err)
	}
	head := func() transcript.Sequence {
		page, err := st.Log("eng").ReadBefore(ctx, 0, 1)
		if err != nil || len(page.Messages) != 1 {
			t.Fatal(page, err)
		}
		return page.Messages[0].Seq
	}
	if h := head(); h != transcript.Sequence(len(first)) {
		t.Fatalf("after the re-import the head is %d, want %d", h, len(first))
	}
	// The extension: every row again, then the new ones; one new row replies by sequence to
	// the one before it, which the batch stores.
	ext := append([]transcript.Message(nil), msgs...)
	ext = append(ext, transcript.Message{Author: opAuthor, Content: "by seq", Parent: transcript.Sequence(n), Key: "by-seq"})
	if err := st.AppendBatch(ctx, "eng", ext); err != nil {
		t.Fatalf("extension: %v", err)
	}
	if h := head(); h != transcript.Sequence(n+1) {
		t.Fatalf("after the extension the head is %d, want %d", h, n+1)
	}
	got, err := st.LookupKeys(ctx, "eng", []string{"key-0", fmt.Sprint("key-", n-50), fmt.Sprint("key-", n-49), fmt.Sprint("key-", n-1), "by-seq"})
	if err != nil {
		t.Fatal(err)
	}
	for key, w := range map[string]struct{ seq, parent transcript.Sequence }{
		"key-0":                  {1, 0},
		fmt.Sprint("key-", n-50): {transcript.Sequence(n - 49), 0},
		fmt.Sprint("key-", n-49): {transcript.Sequence(n - 48), transcript.Sequence(n - 49)}, // (n-49)%3 == 1: a reply to the row before
		fmt.Sprint("key-", n-1):  {transcript.Sequence(n), transcript.Sequence(n - 1)},       // (n-1)%3 == 1 too
		"by-seq":                 {transcript.Sequence(n + 1), transcript.Sequence(n)},
	} {
		if m := got[key]; m.Seq != w.seq || m.Parent != w.parent {
			t.Errorf("key %q: row %d, parent %d; want %d, %d", key, m.Seq, m.Parent, w.seq, w.parent)
		}
	}
}

// TestLookupKeys: LookupKeys finds rows across chunks, resolved as a read returns them,
// ignores absent, repeated and empty keys, and hands out a map and audiences the caller
// owns; a million keys take one call.
func TestLookupKeys(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	n := keyLookupChunk + 500
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		msgs[i] = transcript.Message{Author: triageAgent, Content: fmt.Sprint("row ", i)}
		if i%2 == 0 {
			msgs[i].Key = fmt.Sprint("k", i)
		}
		if i%5 == 0 {
			msgs[i].Audience = []transcript.Author{anaPerson}
		}
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	want := make(map[string]transcript.Message)
	var keys []string
	page, err := st.Log("eng").ReadBefore(ctx, 0, n)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Messages {
		if m.Key != "" {
			want[m.Key] = m
			keys = append(keys, m.Key, "absent-"+m.Key, "")
		}
	}
	keys = append(keys, keys[:100]...) // repeated
	got, err := st.LookupKeys(ctx, "eng", keys)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("LookupKeys (-want +got):\n%s", diff)
	}
	got["k0"].Audience[0].Label = "changed"
	again, err := st.LookupKeys(ctx, "eng", []string{"k0"})
	if err != nil || !cmp.Equal(again["k0"], want["k0"]) {
		t.Errorf("after changing an audience LookupKeys returned: %+v, %v; want %+v", again["k0"], err, want["k0"])
	}
	if got, err := st.LookupKeys(ctx, "no such desk", keys[:10]); err != nil || len(got) != 0 {
		t.Errorf("LookupKeys of a desk the store does not hold: %v, %v", got, err)
	}
	if testing.Short() || raceEnabled {
		return
	}
	million := make([]string, 1_000_000)
	for i := range million {
		million[i] = fmt.Sprint("k", i)
	}
	began := time.Now()
	got, err = st.LookupKeys(ctx, "eng", million)
	if err != nil || len(got) != len(want) {
		t.Fatalf("LookupKeys of a million keys: %d rows, %v; want %d", len(got), err, len(want))
	}
	t.Logf("LookupKeys of a million keys, %d present: %v", len(got), time.Since(began))
}

// TestKeyAcrossStores: goroutines of two Stores on one file appending one key store it
// once and all get the same row back: the key's lookup is in the transaction that holds
// the file's write lock.
func TestKeyAcrossStores(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shared.db")
	var stores [2]*Store
	for i := range stores {
		st, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		stores[i] = st
	}
	if _, err := stores[0].Append(ctx, "eng", transcript.Message{Author: opAuthor, Content: "first"}); err != nil {
		t.Fatal(err)
	}
	const writers = 8
	var (
		wg   sync.WaitGroup
		got  [writers]transcript.Message
		errs [writers]error
	)
	for w := range writers {
		wg.Go(func() {
			got[w], errs[w] = stores[w%2].Append(ctx, "eng", transcript.Message{Author: reviewAgent, Content: "raced", Key: "raced"})
		})
	}
	wg.Wait()
	for w := range writers {
		if errs[w] != nil || !cmp.Equal(got[w], got[0]) || got[w].Seq != 2 {
			t.Errorf("writer %d: %+v, %v; want row 2 as writer 0 got it: %+v", w, got[w], errs[w], got[0])
		}
	}
	if rows := readDesk(t, stores[1], "eng"); len(rows) != 2 {
		t.Errorf("the desk holds %d rows, want 2", len(rows))
	}
}

// TestReplayWritesNothing: a replay that names its author and audience by new labels (the
// same identities) stores no authors or audiences row for them, although its insert found
// or created them before the key turned out present, and leaves the Store's caches true:
// the next append with those labels stores and reads them back.
func TestReplayWritesNothing(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	m := transcript.Message{Author: reviewAgent, Content: "for Triage", Audience: []transcript.Author{triageAgent}, Key: "k"}
	stored, err := st.Append(ctx, "eng", m)
	if err != nil {
		t.Fatal(err)
	}
	authors, audiences := authorRows(t, st), audienceRows(t, st)
	renamedReview, renamedTriage := transcript.Agent("review", "Review v2"), transcript.Agent("triage", "Triage v2")
	m.Author, m.Audience = renamedReview, []transcript.Author{renamedTriage}
	for range 2 { // the second time from the caches, if the first had filled them
		if got, err := st.Append(ctx, "eng", m); err != nil || !cmp.Equal(got, stored) {
			t.Fatalf("replay with new labels: %+v, %v; want the stored row %+v", got, err, stored)
		}
		if a, u := authorRows(t, st), audienceRows(t, st); a != authors || u != audiences {
			t.Errorf("after the replay %d authors and %d audiences rows, want %d and %d", a, u, authors, audiences)
		}
	}
	m.Key = "k2"
	next, err := st.Append(ctx, "eng", m)
	if err != nil {
		t.Fatal(err)
	}
	want := []transcript.Message{stored, next}
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("the desk after a replay and a new row (-want +got):\n%s", diff)
	}
	if got := readDesk(t, st, "eng")[1]; got.Author != renamedReview || got.Audience[0] != renamedTriage {
		t.Errorf("the new row reads back by %v for %v, want %v for %v", got.Author, got.Audience, renamedReview, renamedTriage)
	}
}
