package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

var (
	alice = transcript.Person("alice", "Alice")
	bot   = transcript.Agent("bot", "Bot")
)

func TestAppendAssignsConsecutiveSequencesPerDesk(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	for i := range 3 {
		for _, d := range []string{"eng", "ops"} {
			m, err := st.Append(ctx, d, transcript.Message{Author: alice, Content: "hi " + d})
			if err != nil {
				t.Fatal(err)
			}
			if want := transcript.Sequence(i + 1); m.Seq != want {
				t.Errorf("Append #%d to %s: Seq %d, want %d", i+1, d, m.Seq, want)
			}
		}
	}
	desks, err := st.Desks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"eng", "ops"}, desks); diff != "" {
		t.Errorf("Desks (-want +got):\n%s", diff)
	}
}

// TestStoredRow: Append returns the stored row, which reads back identically: At stamped
// when zero, kept to the microsecond otherwise, in UTC, from the Unix epoch to the year
// 9999; authors, labels and any content PostgreSQL text can hold kept intact.
func TestStoredRow(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	given := time.Date(2024, 2, 29, 23, 59, 58, 123_456_789, time.FixedZone("UTC-3", -3*60*60))
	msgs := []transcript.Message{
		{Author: transcript.Operator(), Content: "stamped by the store"},
		{Parent: 1, Author: transcript.Person("ana", "Ana Lima"), Content: "kept to the microsecond", At: given},
		{Parent: 2, Author: transcript.Agent("writer", "Writer ✍"), Content: "  \n\t"},
		{Author: transcript.System("workflow", ""), Content: "naïve café — 日本語 🚀 \u00a0\u2028", At: time.Unix(0, 0)},
		{Parent: 1, Author: transcript.Person("bo", "Bo"), Content: "<reply to=\"1\">\n'quotes' and %s %d ?1 $1 \\x00 E'\\0'"},
		{Author: transcript.Agent("x", "far future"), Content: "year 9999", At: time.Date(9999, 12, 31, 23, 59, 59, 999_999_999, time.UTC)},
		{Author: transcript.Agent("y", "first year"), Content: "year 1", At: time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC)},
	}
	var stored []transcript.Message
	for i, m := range msgs {
		before := time.Now().Truncate(time.Microsecond)
		got, err := st.Append(ctx, "eng", m)
		if err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		want := m
		want.Seq = transcript.Sequence(i + 1)
		if m.At.IsZero() {
			if got.At.Before(before) || got.At.After(after) {
				t.Errorf("row %d: stamped At = %v, want the time of the append, in [%v, %v]", got.Seq, got.At, before, after)
			}
			want.At = got.At
		} else {
			want.At = m.At.Truncate(time.Microsecond).UTC()
		}
		if got.At.Location() != time.UTC {
			t.Errorf("row %d: At in %v, want UTC", got.Seq, got.At.Location())
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Append returned (-want +got):\n%s", diff)
		}
		stored = append(stored, got)
	}
	page, err := st.Log("eng").ReadBefore(ctx, 0, 100)
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(stored)
	if diff := cmp.Diff(transcript.Page{Messages: stored}, page); diff != "" {
		t.Errorf("ReadBefore after the appends (-want +got):\n%s", diff)
	}
}

func TestAppendBatch(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "before"}); err != nil {
		t.Fatal(err)
	}
	batch := []transcript.Message{
		{Author: alice, Content: "root"},
		{Parent: transcript.BatchParent(0), Author: bot, Content: "reply to the batch's root"},
		{Parent: 1, Author: bot, Content: "reply to the row before the batch"},
		{Parent: transcript.BatchParent(1), Author: alice, Content: "reply to the reply"},
	}
	if err := st.AppendBatch(ctx, "eng", batch); err != nil {
		t.Fatal(err)
	}
	page, err := st.Log("eng").ReadBefore(ctx, 0, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range slices.Backward(page.Messages) {
		got = append(got, fmt.Sprintf("%d<-%d %s", m.Seq, m.Parent, m.Content))
	}
	want := []string{
		"1<-0 before",
		"2<-0 root",
		"3<-2 reply to the batch's root",
		"4<-1 reply to the row before the batch",
		"5<-3 reply to the reply",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows after AppendBatch (-want +got):\n%s", diff)
	}
	if err := st.AppendBatch(ctx, "eng", nil); err != nil {
		t.Errorf("empty AppendBatch: %v", err)
	}
}

// TestRejectedAppendsStoreNothing feeds Append and AppendBatch bad input, each rejected with
// an error matching transcript.ErrInvalidMessage, and shows that nothing was stored and no
// sequence number used: the next good append gets the next number.
func TestRejectedAppendsStoreNothing(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t, pgstore.WithMaxContent(16))
	ctx := t.Context()
	good := transcript.Message{Author: alice, Content: "fine"}
	if _, err := st.Append(ctx, "eng", good); err != nil {
		t.Fatal(err)
	}
	with := func(f func(*transcript.Message)) transcript.Message {
		m := good
		f(&m)
		return m
	}
	type single struct {
		name string
		desk string
		m    transcript.Message
		kind error // also matched, besides transcript.ErrInvalidMessage
		text string
	}
	singles := []single{
		{"empty desk", "", good, pgstore.ErrDeskName, "invalid desk name: empty"},
		{"desk with NUL", "e\x00g", good, pgstore.ErrDeskName, `character '\x00' at byte 1`},
		{"desk not UTF-8", "e\xffg", good, pgstore.ErrDeskName, "UTF-8"},
		{"desk dot dot", "..", good, pgstore.ErrDeskName, "names a directory"},
		{"invalid author", "eng", with(func(m *transcript.Message) { m.Author = transcript.Agent("", "nobody") }), transcript.ErrInvalidAuthor, "agent"},
		{"unknown author kind", "eng", with(func(m *transcript.Message) { m.Author.Kind = 9 }), transcript.ErrInvalidAuthor, "kind"},
		{"seq set", "eng", with(func(m *transcript.Message) { m.Seq = 7 }), transcript.ErrInvalidMessage, "seq 7"},
		{"content not UTF-8", "eng", with(func(m *transcript.Message) { m.Content = "a\xffb" }), transcript.ErrInvalidMessage, "UTF-8"},
		{"content with NUL", "eng", with(func(m *transcript.Message) { m.Content = "a\x00b" }), pgstore.ErrText, "PostgreSQL text cannot store"},
		{"label with NUL", "eng", with(func(m *transcript.Message) { m.Author.Label = "A\x00" }), pgstore.ErrText, "author label"},
		{"id not UTF-8", "eng", with(func(m *transcript.Message) { m.Author.ID = "\xc3" }), pgstore.ErrText, "author id"},
		{"content over the limit", "eng", with(func(m *transcript.Message) { m.Content = strings.Repeat("x", 17) }), pgstore.ErrContentTooLarge, "17 bytes, over the limit of 16"},
		{"missing parent", "eng", with(func(m *transcript.Message) { m.Parent = 3 }), pgstore.ErrParent, "parent 3"},
		{"parent naming the new row", "eng", with(func(m *transcript.Message) { m.Parent = 2 }), pgstore.ErrParent, "parent 2"},
		{"parent in another desk", "ops", with(func(m *transcript.Message) { m.Parent = 1 }), pgstore.ErrParent, "parent 1"},
		{"at in the year 0", "eng", with(func(m *transcript.Message) { m.At = time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC) }), pgstore.ErrAt, "outside the years 1 to 9999"},
		{"at in the year 10000", "eng", with(func(m *transcript.Message) { m.At = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), pgstore.ErrAt, "outside the years 1 to 9999"},
		{"batch parent outside a batch", "eng", with(func(m *transcript.Message) { m.Parent = transcript.BatchParent(0) }), pgstore.ErrParent, "BatchParent"},
	}
	for _, tc := range singles {
		_, err := st.Append(ctx, tc.desk, tc.m)
		checkRejected(t, "Append "+tc.name, err, tc.kind, tc.text, -1)
	}

	type batch struct {
		name  string
		msgs  []transcript.Message
		index int
		kind  error
		text  string
	}
	batches := []batch{
		{"invalid author", []transcript.Message{good, with(func(m *transcript.Message) { m.Author = transcript.Author{} })}, 1, transcript.ErrInvalidAuthor, "kind"},
		{"content over the limit", []transcript.Message{good, good, with(func(m *transcript.Message) { m.Content = strings.Repeat("é", 9) })}, 2, pgstore.ErrContentTooLarge, "18 bytes"},
		{"batch parent naming itself", []transcript.Message{good, with(func(m *transcript.Message) { m.Parent = transcript.BatchParent(1) })}, 1, pgstore.ErrParent, "batch message 1"},
		{"batch parent naming a later message", []transcript.Message{with(func(m *transcript.Message) { m.Parent = transcript.BatchParent(1) }), good}, 0, pgstore.ErrParent, "batch message 1"},
		{"plain parent naming the message itself", []transcript.Message{good, good, with(func(m *transcript.Message) { m.Parent = 4 })}, 2, pgstore.ErrParent, "parent 4"},
		{"missing parent after good rows", []transcript.Message{good, with(func(m *transcript.Message) { m.Parent = 99 })}, 1, pgstore.ErrParent, "parent 99"},
	}
	for _, tc := range batches {
		err := st.AppendBatch(ctx, "eng", tc.msgs)
		checkRejected(t, "AppendBatch "+tc.name, err, tc.kind, tc.text, tc.index)
	}
	err := st.AppendBatch(ctx, "", []transcript.Message{good})
	checkRejected(t, "AppendBatch to an empty desk name", err, pgstore.ErrDeskName, "invalid desk name: empty", -1)

	m, err := st.Append(ctx, "eng", good)
	if err != nil {
		t.Fatal(err)
	}
	if m.Seq != 2 {
		t.Errorf("Append after the rejected ones: Seq %d, want 2 (a rejected append uses no number)", m.Seq)
	}
	desks, err := st.Desks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"eng"}, desks); diff != "" {
		t.Errorf("Desks after the rejected appends (-want +got):\n%s", diff)
	}
	page, err := st.Log("ops").ReadBefore(ctx, 0, 10)
	if err != nil || len(page.Messages) != 0 {
		t.Errorf("desk ops after rejected appends: %v, %v; want an empty page", page, err)
	}
}

func checkRejected(t *testing.T, what string, err, kind error, text string, index int) {
	t.Helper()
	var me *pgstore.AppendError
	switch {
	case err == nil:
		t.Errorf("%s: no error, want one matching transcript.ErrInvalidMessage", what)
		return
	case !errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, kind):
		t.Errorf("%s: %v, want an error matching transcript.ErrInvalidMessage and %v", what, err, kind)
	case !errors.As(err, &me):
		t.Errorf("%s: %v (%T), want a *pgstore.AppendError", what, err, err)
	case me.Index != index:
		t.Errorf("%s: %v: Index %d, want %d", what, err, me.Index, index)
	case !strings.Contains(err.Error(), text):
		t.Errorf("%s: %q, want it to say %q", what, err, text)
	}
}

func TestReadBefore(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	msgs := make([]transcript.Message, 10)
	for i := range msgs {
		msgs[i] = transcript.Message{Author: alice, Content: fmt.Sprint(i + 1)}
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	log := st.Log("eng")
	for _, tc := range []struct {
		before transcript.Sequence
		limit  int
		seqs   []transcript.Sequence
		next   transcript.Sequence
	}{
		{0, 3, []transcript.Sequence{10, 9, 8}, 8},
		{8, 3, []transcript.Sequence{7, 6, 5}, 5},
		{4, 3, []transcript.Sequence{3, 2, 1}, 0}, // exactly the rest: Next is 0
		{3, 5, []transcript.Sequence{2, 1}, 0},
		{1, 5, nil, 0},
		{1 << 63, 2, []transcript.Sequence{10, 9}, 9}, // a bound above every Seq
		{^transcript.Sequence(0), 1, []transcript.Sequence{10}, 10},
	} {
		page, err := st.Log("eng").ReadBefore(ctx, tc.before, tc.limit) // a new Log: nothing read ahead
		if err != nil {
			t.Fatalf("ReadBefore(%d, %d): %v", tc.before, tc.limit, err)
		}
		var seqs []transcript.Sequence
		for _, m := range page.Messages {
			seqs = append(seqs, m.Seq)
		}
		if !slices.Equal(seqs, tc.seqs) || page.Next != tc.next {
			t.Errorf("ReadBefore(%d, %d) = %v next %d, want %v next %d", tc.before, tc.limit, seqs, page.Next, tc.seqs, tc.next)
		}
	}
	if _, err := log.ReadBefore(ctx, 0, 0); !errors.Is(err, pgstore.ErrLimit) {
		t.Errorf("ReadBefore with limit 0: %v, want ErrLimit", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := log.ReadBefore(cancelled, 0, 3); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadBefore with a cancelled ctx: %v, want context.Canceled", err)
	}
	if _, err := st.Append(cancelled, "eng", transcript.Message{Author: alice, Content: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a cancelled ctx: %v, want context.Canceled", err)
	}
}

// TestStatementDeadline shows a statement cut short by ctx's deadline: an Append waiting for
// the desk lock that another append holds gives up when its ctx expires. (A read never waits
// for a writer, so it is the waiting Append that shows it.)
func TestStatementDeadline(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	held := holdNextAppend(t, st)
	first := make(chan error, 1)
	go func() {
		_, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "held"})
		first <- err
	}()
	<-held.reached
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	_, err := st.Append(short, "eng", transcript.Message{Author: bot, Content: "waits for the lock"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Append past its deadline, waiting for the desk lock: %v, want context.DeadlineExceeded", err)
	}
	close(held.release)
	if err := <-first; err != nil {
		t.Errorf("the held Append: %v", err)
	}
}

func TestNewKeepsTheCallersPool(t *testing.T) {
	t.Parallel()
	dsn := newDatabase(t)
	pool := connect(t, dsn)
	st, err := pgstore.New(t.Context(), pool)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(t.Context(), "eng", transcript.Message{Author: alice, Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := pool.QueryRow(t.Context(), "SELECT count(*) FROM transcript_messages").Scan(&n); err != nil || n != 1 {
		t.Errorf("the caller's pool after Close: count %d, %v; want 1 row and a usable pool", n, err)
	}
}

func TestOptions(t *testing.T) {
	if _, err := pgstore.Open(t.Context(), "postgres://nowhere/", pgstore.WithMaxContent(0)); err == nil {
		t.Error("WithMaxContent(0): no error")
	}
	if _, err := pgstore.Open(t.Context(), "postgres://nowhere/", pgstore.WithMaxContent(transcript.MaxContent+1)); err == nil || !strings.Contains(err.Error(), "WithMaxContent") {
		t.Errorf("WithMaxContent over transcript.MaxContent: %v, want the option refused", err)
	}
	if _, err := pgstore.New(t.Context(), nil); err == nil {
		t.Error("New(nil pool): no error")
	}
}
