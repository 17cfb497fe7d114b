package storetest

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// keySecret is in the content of every keyed row the checks write, so that an error quoting
// one shows.
const keySecret = "SECRET-keyed-content"

// KeyRule checks the key rules on d, a new, empty desk, through single appends:
// a replayed append (same author identity, parent, audience and content; labels and times
// aside) returns the stored row and writes nothing, whatever audience the reply rule filled
// in; one that differs in any of those fails with a *transcript.KeyConflictError naming the
// key and the stored row, quoting neither; keys over transcript.MaxKeyLen bytes, unprintable
// or not UTF-8 are refused as invalid; 8 goroutines appending one key store one row and all
// get it back; and every row reads back with its key. memlog's tests and the store suite
// (check "Keys") both run it.
func KeyRule(t *testing.T, d Appender) {
	t.Helper()
	ctx := t.Context()
	var stored []transcript.Message
	add := func(m transcript.Message) transcript.Message {
		t.Helper()
		got, err := d.Append(ctx, m)
		if err != nil {
			t.Fatalf("Append of key %q: %v", m.Key, err)
		}
		if want := transcript.Sequence(len(stored) + 1); got.Seq != want || got.Key != m.Key {
			t.Fatalf("Append of key %q: seq %d, key %q; want %d, %q", m.Key, got.Seq, got.Key, want, m.Key)
		}
		stored = append(stored, got)
		return got
	}
	replay := func(name string, m transcript.Message, want transcript.Message) {
		t.Helper()
		got, err := d.Append(ctx, m)
		if err != nil {
			t.Errorf("%s: replay of key %q: %v", name, m.Key, err)
			return
		}
		if diff := cmp.Diff(want, got, timeEqual); diff != "" {
			t.Errorf("%s: replay of key %q did not return the stored row (-want +got):\n%s", name, m.Key, diff)
		}
		if h := headOf(t, d); h != transcript.Sequence(len(stored)) {
			t.Errorf("%s: after the replay the head is %d, want %d", name, h, len(stored))
		}
	}
	conflict := func(name string, m transcript.Message, seq transcript.Sequence) {
		t.Helper()
		_, err := d.Append(ctx, m)
		var ke *transcript.KeyConflictError
		switch {
		case !errors.Is(err, transcript.ErrKeyConflict) || !errors.As(err, &ke):
			t.Errorf("%s: error %v, want a *transcript.KeyConflictError", name, err)
		case ke.Key != m.Key || ke.Seq != seq:
			t.Errorf("%s: conflict names key %q and row %d, want %q and %d", name, ke.Key, ke.Seq, m.Key, seq)
		case strings.Contains(err.Error(), keySecret):
			t.Errorf("%s: the error quotes a row: %q", name, err)
		case errors.Is(err, transcript.ErrInvalidMessage):
			t.Errorf("%s: a conflict matches ErrInvalidMessage: %v", name, err)
		}
		if h := headOf(t, d); h != transcript.Sequence(len(stored)) {
			t.Errorf("%s: after the conflict the head is %d, want %d", name, h, len(stored))
		}
	}
	op, triage, review := asideOperator, asideTriage, asideReview
	keyed := func(key string, parent transcript.Sequence, author transcript.Author, content string, audience ...transcript.Author) transcript.Message {
		return transcript.Message{Key: key, Parent: parent, Author: author, Content: keySecret + " " + content, Audience: audience}
	}

	first := add(keyed("msg-1", 0, triage, "first"))
	replay("the same message", keyed("msg-1", 0, triage, "first"), first)
	replay("a new label", keyed("msg-1", 0, transcript.Agent("triage", "Renamed"), "first"), first)
	conflict("other content", keyed("msg-1", 0, triage, "second"), 1)
	conflict("another author", keyed("msg-1", 0, review, "first"), 1)
	conflict("another parent", keyed("msg-1", 1, triage, "first"), 1)
	conflict("an audience", keyed("msg-1", 0, triage, "first", op), 1)

	aside := add(keyed("aside-2", 0, op, "for triage", triage))
	answer := add(keyed("answer-3", aside.Seq, triage, "answer")) // the reply rule fills in [operator]
	replay("a reply whose audience the rule fills in", keyed("answer-3", aside.Seq, triage, "answer"), answer)
	replay("a reply naming its audience", keyed("answer-3", aside.Seq, triage, "answer", op), answer)
	conflict("a reply to another row", keyed("answer-3", first.Seq, triage, "answer"), answer.Seq)
	conflict("an aside replayed as a desk row", keyed("aside-2", 0, op, "for triage"), aside.Seq)
	add(keyed("", 0, op, "no key"))
	add(keyed("", 0, op, "no key")) // an empty key is no key: no replay
	add(keyed(strings.Repeat("k", transcript.MaxKeyLen), 0, op, "longest key"))
	add(keyed("1712345678.123456 ümlaut ✓ key", 0, op, "printable"))

	for _, bad := range []struct{ name, key string }{
		{"a key over MaxKeyLen", strings.Repeat("k", transcript.MaxKeyLen+1)},
		{"a key with a newline", "a\nb"},
		{"a key with a NUL byte", "a\x00b"},
		{"a key with an escape", "a\x1b[2J"},
		{"a key not UTF-8", "a\xffb"},
	} {
		_, err := d.Append(ctx, keyed(bad.key, 0, op, bad.name))
		if !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s: error %v, want one matching transcript.ErrInvalidMessage", bad.name, err)
		}
		if h := headOf(t, d); h != transcript.Sequence(len(stored)) {
			t.Errorf("%s: after the refusal the head is %d, want %d", bad.name, h, len(stored))
		}
	}

	// One key from many goroutines: one row, and every caller gets it.
	const writers = 8
	var (
		wg   sync.WaitGroup
		got  [writers]transcript.Message
		errs [writers]error
	)
	for w := range writers {
		wg.Go(func() { got[w], errs[w] = d.Append(ctx, keyed("raced", 0, review, "raced")) })
	}
	wg.Wait()
	for w := range writers {
		if errs[w] != nil {
			t.Errorf("concurrent append %d of one key: %v", w, errs[w])
		} else if !cmp.Equal(got[w], got[0], timeEqual) {
			t.Errorf("concurrent append %d of one key returned %+v, append 0 %+v", w, got[w], got[0])
		}
	}
	if errs[0] == nil {
		stored = append(stored, got[0])
	}
	checkRows(t, "the rows read back after the keyed appends", readAllOf(t, d), stored)
}

// KeyLookup is a store that finds rows by key, as both stores of this module do (and the
// import command needs, to resolve parents named by key and to tell present rows from new).
type KeyLookup interface {
	// LookupKeys returns the rows of desk that hold the given keys, by key, as a read returns
	// them; a key the desk does not hold, and the empty key, are absent from the map. An
	// unknown desk holds no key.
	LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error)
}

// checkLookupKeys: LookupKeys finds exactly the rows of desk holding the keys asked for.
func checkLookupKeys(t *testing.T, st Store, desk string) {
	t.Helper()
	lk, ok := st.(KeyLookup)
	if !ok {
		t.Fatalf("%T has no LookupKeys method", st)
	}
	rows := mustReadAll(t, st, desk)
	var keys []string
	want := make(map[string]transcript.Message)
	for _, m := range rows {
		if m.Key != "" {
			keys = append(keys, m.Key)
			want[m.Key] = m
		}
	}
	got, err := lk.LookupKeys(t.Context(), desk, append(keys, "no such key", ""))
	if err != nil {
		t.Fatalf("LookupKeys: %v", err)
	}
	if diff := cmp.Diff(want, got, timeEqual); diff != "" {
		t.Errorf("LookupKeys of desk %q (-want +got):\n%s", desk, diff)
	}
	for _, other := range []string{"no such desk", "keys"} {
		if other == desk {
			continue
		}
		if got, err := lk.LookupKeys(t.Context(), other, []string{"a", "b"}); err != nil || len(got) != 0 {
			t.Errorf("LookupKeys of keys desk %q does not hold: %v, %v", other, got, err)
		}
	}
	if got, err := lk.LookupKeys(t.Context(), desk, nil); err != nil || len(got) != 0 {
		t.Errorf("LookupKeys of no keys: %v, %v", got, err)
	}
}

// checkKeys: the key rules through Append (KeyRule), then through AppendBatch: a batch
// skips its rows whose keys are present and identical and appends the rest, numbered
// consecutively, with a BatchParent naming a skipped row resolved to the stored row; a
// batch with a conflicting key, or with one key twice, writes nothing. The store must be a
// KeyLookup, and find the keyed rows.
func checkKeys(t *testing.T, st Store) {
	KeyRule(t, DeskOf(st, "keys"))

	const desk = "keyed-batch"
	op, triage := asideOperator, asideTriage
	row := func(key string, parent transcript.Sequence, content string) transcript.Message {
		return transcript.Message{Key: key, Parent: parent, Author: op, Content: keySecret + " " + content}
	}
	part1 := []transcript.Message{
		row("a", 0, "a"),
		row("b", transcript.BatchParent(0), "b"),
		{Key: "c", Author: op, Content: keySecret + " c", Audience: []transcript.Author{triage}},
	}
	if err := st.AppendBatch(t.Context(), desk, part1); err != nil {
		t.Fatalf("AppendBatch of the first part: %v", err)
	}
	first := mustReadAll(t, st, desk)
	// The second part repeats the first, answers its rows by BatchParent and by key-known
	// seqs, and adds new rows.
	part2 := append(append([]transcript.Message(nil), part1...),
		row("d", transcript.BatchParent(1), "d: a reply to b, skipped"),
		transcript.Message{Key: "e", Parent: transcript.BatchParent(2), Author: triage, Content: keySecret + " e: into the aside"},
		row("f", 0, "f"),
	)
	if err := st.AppendBatch(t.Context(), desk, part2); err != nil {
		t.Fatalf("AppendBatch of a batch that repeats the first: %v", err)
	}
	rows := mustReadAll(t, st, desk)
	if len(rows) != 6 {
		t.Fatalf("after the second batch the desk holds %d rows, want 6: the three repeated ones skipped", len(rows))
	}
	checkRows(t, "the first batch's rows after the second", rows[:3], first)
	want := []struct {
		key    string
		seq    transcript.Sequence
		parent transcript.Sequence
	}{{"d", 4, 2}, {"e", 5, 3}, {"f", 6, 0}}
	for i, w := range want {
		if m := rows[3+i]; m.Key != w.key || m.Seq != w.seq || m.Parent != w.parent {
			t.Errorf("row %d: key %q, seq %d, parent %d; want %q, %d, %d", 3+i, m.Key, m.Seq, m.Parent, w.key, w.seq, w.parent)
		}
	}
	if a := rows[4].Audience; len(a) != 1 || !a[0].Same(op) {
		t.Errorf("the reply into the aside has audience %v, want [operator]", a)
	}
	if err := st.AppendBatch(t.Context(), desk, part2); err != nil {
		t.Errorf("AppendBatch of rows all present: %v", err)
	}
	checkLookupKeys(t, st, desk)
	for _, bad := range []struct {
		name string
		msgs []transcript.Message
		want error
	}{
		{"a conflicting key last", []transcript.Message{row("g", 0, "g"), row("a", 0, "not a")}, transcript.ErrKeyConflict},
		{"a conflicting key first", []transcript.Message{row("f", 1, "f"), row("h", 0, "h")}, transcript.ErrKeyConflict},
		{"one key twice", []transcript.Message{row("i", 0, "i"), row("i", 0, "i")}, transcript.ErrDuplicateKey},
		{"one key twice, different rows", []transcript.Message{row("j", 0, "j"), row("k", 0, "k"), row("j", 0, "other")}, transcript.ErrDuplicateKey},
	} {
		err := st.AppendBatch(t.Context(), desk, bad.msgs)
		switch {
		case !errors.Is(err, bad.want):
			t.Errorf("AppendBatch with %s: error %v, want one matching %v", bad.name, err, bad.want)
		case strings.Contains(err.Error(), keySecret):
			t.Errorf("AppendBatch with %s: the error quotes a row: %q", bad.name, err)
		}
		if got := head(t, st, desk); got != 6 {
			t.Errorf("AppendBatch with %s: head %d after the refusal, want 6", bad.name, got)
		}
	}
}
