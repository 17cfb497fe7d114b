package pgstore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// erased is the content of the rows these tests redact: no read after the redaction may
// hold it.
const erased = "ERASED-password-hunter2"

// TestCorrectionsApplied: an edit changes its target's content and Revised in the append's
// transaction; a redaction erases the target and its earlier edit at once, as a new Store
// on the same database reads them, and as the table holds them.
func TestCorrectionsApplied(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	root, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "deploy at 22:00"})
	if err != nil {
		t.Fatal(err)
	}
	edit, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Corrects: root.Seq, Content: erased})
	if err != nil {
		t.Fatalf("edit: %v", err)
	}
	if edit.Seq != 2 || edit.Corrects != 1 || edit.Content != erased {
		t.Fatalf("edit stored as %+v", edit)
	}
	rows := readDesk(t, st, "eng")
	if got := rows[0]; got.Content != erased || got.Revised != edit.Seq || got.Redacted {
		t.Fatalf("after the edit, row 1 reads %+v", got)
	}
	red, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Corrects: root.Seq, Redacted: true})
	if err != nil {
		t.Fatalf("redaction: %v", err)
	}
	other, err := pgstore.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	want := []transcript.Message{
		{Seq: 1, Author: alice, Redacted: true, Revised: red.Seq},
		{Seq: 2, Author: alice, Corrects: 1, Redacted: true},
		{Seq: 3, Author: transcript.Operator(), Corrects: 1, Redacted: true},
	}
	for name, s := range map[string]*pgstore.Store{"the Store": st, "a new Store": other} {
		got := readDesk(t, s, "eng")
		for i := range got {
			got[i].At = want[i].At
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s reads after the redaction (-want +got):\n%s", name, diff)
		}
	}
	var holding int
	if err := connect(t, dsn).QueryRow(ctx, `SELECT count(*) FROM transcript_messages WHERE content LIKE '%' || $1 || '%'`, erased).Scan(&holding); err != nil {
		t.Fatal(err)
	}
	if holding != 0 {
		t.Errorf("%d rows of the table hold the erased content", holding)
	}
}

// TestCorrectionRefusals: every refusal of the correction rule comes back with its error,
// quoting no content, and writes nothing.
func TestCorrectionRefusals(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	seed := []transcript.Message{
		{Author: alice, Content: "hello"},                                     // 1
		{Author: bot, Content: secret, Audience: []transcript.Author{triage}}, // 2: an aside alice may not read
		{Author: alice, Content: "  "},                                        // 3: blank
		{Author: alice, Content: "to redact"},                                 // 4
		{Author: alice, Corrects: 1, Content: "hello again"},                  // 5
		{Author: alice, Corrects: 4, Redacted: true},                          // 6
	}
	if err := st.AppendBatch(ctx, "eng", seed); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		m    transcript.Message
		want error
	}{
		{"a missing row", transcript.Message{Author: alice, Corrects: 99, Content: "x"}, transcript.ErrNotReadable},
		{"an aside its author may not read", transcript.Message{Author: alice, Corrects: 2, Redacted: true}, transcript.ErrNotReadable},
		{"a blank row", transcript.Message{Author: alice, Corrects: 3, Content: "x"}, transcript.ErrInvalidMessage},
		{"a correction", transcript.Message{Author: alice, Corrects: 5, Content: "x"}, transcript.ErrInvalidMessage},
		{"a redacted row", transcript.Message{Author: alice, Corrects: 4, Content: "x"}, transcript.ErrRedacted},
		{"another's row", transcript.Message{Author: bot, Corrects: 1, Content: "x"}, transcript.ErrNotAuthor},
		{"another's redaction", transcript.Message{Author: bot, Corrects: 1, Redacted: true}, transcript.ErrNotAuthor},
		{"a reply to a correction", transcript.Message{Author: alice, Parent: 5, Content: "x"}, transcript.ErrInvalidMessage},
		{"an audience of its own", transcript.Message{Author: alice, Corrects: 1, Content: "x", Audience: []transcript.Author{bot}}, transcript.ErrInvalidAudience},
	} {
		_, err := st.Append(ctx, "eng", c.m)
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("%s: the refusal quotes the aside: %v", c.name, err)
		}
		err = st.AppendBatch(ctx, "eng", []transcript.Message{{Author: alice, Content: "first"}, c.m})
		if !errors.Is(err, c.want) {
			t.Errorf("%s in a batch: %v, want %v", c.name, err, c.want)
		}
	}
	if rows := readDesk(t, st, "eng"); len(rows) != len(seed) || rows[0].Content != "hello again" {
		t.Errorf("after the refusals the desk holds %d rows, row 1 %q; want %d, %q", len(rows), rows[0].Content, len(seed), "hello again")
	}
}

// TestCorrectionKeyReplays: a correction with a key is a replay when appended again, even
// after its target was redacted; a different correction under its key conflicts.
func TestCorrectionKeyReplays(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	edit := transcript.Message{Author: alice, Corrects: 1, Content: erased, Key: "edit-1"}
	if _, added, err := st.AppendNew(ctx, "eng", edit); err != nil || !added {
		t.Fatalf("edit: added %v, %v", added, err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: alice, Corrects: 1, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	got, added, err := st.AppendNew(ctx, "eng", edit)
	if err != nil || added || got.Seq != 2 || !got.Redacted || got.Content != "" {
		t.Errorf("the edit again after the redaction: %+v, added %v, %v; want row 2 replayed, erased", got, added, err)
	}
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{edit}); err != nil {
		t.Errorf("the edit again in a batch: %v", err)
	}
	other := edit
	other.Corrects = 3
	if _, err := st.Append(ctx, "eng", other); !errors.Is(err, transcript.ErrKeyConflict) && !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Errorf("another correction under the key: %v, want a refusal", err)
	}
	if n := len(readDesk(t, st, "eng")); n != 3 {
		t.Errorf("the desk holds %d rows, want 3", n)
	}
}

// TestCorrectionsInABatch: a batch may correct its own rows and stored ones, each
// correction applied in order, a redaction erasing the batch's earlier corrections too.
func TestCorrectionsInABatch(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: alice, Content: "one"},
		{Author: alice, Content: "two", Audience: []transcript.Author{bot}},
	}); err != nil {
		t.Fatal(err)
	}
	batch := []transcript.Message{
		{Author: alice, Content: "three"},
		{Author: alice, Corrects: transcript.BatchParent(0), Content: "three, edited"},
		{Author: alice, Corrects: 1, Content: "one, edited"},
		{Author: alice, Corrects: 2, Content: "two, edited"},
		{Author: alice, Corrects: 1, Content: erased},
		{Author: transcript.Operator(), Corrects: 1, Redacted: true},
		{Author: bot, Parent: 2, Content: "a reply to the aside"},
	}
	if err := st.AppendBatch(ctx, "eng", batch); err != nil {
		t.Fatal(err)
	}
	toBot, toAlice := []transcript.Author{bot}, []transcript.Author{alice}
	want := []transcript.Message{
		{Seq: 1, Author: alice, Redacted: true, Revised: 8},
		{Seq: 2, Author: alice, Content: "two, edited", Audience: toBot, Revised: 6},
		{Seq: 3, Author: alice, Content: "three, edited", Revised: 4},
		{Seq: 4, Author: alice, Corrects: 3, Content: "three, edited"},
		{Seq: 5, Author: alice, Corrects: 1, Redacted: true},
		{Seq: 6, Author: alice, Corrects: 2, Content: "two, edited", Audience: toBot},
		{Seq: 7, Author: alice, Corrects: 1, Redacted: true},
		{Seq: 8, Author: transcript.Operator(), Corrects: 1, Redacted: true},
		{Seq: 9, Author: bot, Parent: 2, Content: "a reply to the aside", Audience: toAlice},
	}
	got := readDesk(t, st, "eng")
	for i := range got {
		got[i].At = want[i].At
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the desk (-want +got):\n%s", diff)
	}
}

// TestRestoreBatch: the rows of a desk with corrections, read back and restored into an
// empty desk, are stored exactly as they were, erased rows included; AppendBatch refuses
// them; a restore the correction rule refuses stores nothing.
func TestRestoreBatch(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	if err := st.AppendBatch(ctx, "src", []transcript.Message{
		{Author: alice, Content: "one", Key: "k1"},
		{Author: alice, Corrects: 1, Content: "one, edited"},
		{Author: alice, Corrects: 1, Redacted: true, Key: "k3"},
		{Author: bot, Content: "aside", Audience: []transcript.Author{alice}},
		{Author: bot, Corrects: 4, Content: "aside, edited"},
		{Author: alice, Parent: 4, Content: "reply"},
	}); err != nil {
		t.Fatal(err)
	}
	src := readDesk(t, st, "src")
	export := make([]transcript.Message, len(src))
	for i, m := range src {
		m.Seq = 0
		export[i] = m
	}
	if err := st.AppendBatch(ctx, "dst", export); !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Errorf("AppendBatch of the export: %v, want a refusal", err)
	}
	broken := append([]transcript.Message{}, export...)
	broken[1].Author = bot // an edit of alice's row
	if err := st.RestoreBatch(ctx, "dst", broken); !errors.Is(err, transcript.ErrNotAuthor) {
		t.Errorf("RestoreBatch of a correction by another: %v, want %v", err, transcript.ErrNotAuthor)
	}
	if rows := readDesk(t, st, "dst"); len(rows) != 0 {
		t.Fatalf("the refused restores stored %d rows", len(rows))
	}
	if err := st.RestoreBatch(ctx, "dst", export); err != nil {
		t.Fatalf("RestoreBatch: %v", err)
	}
	if diff := cmp.Diff(src, readDesk(t, st, "dst")); diff != "" {
		t.Errorf("restored (-src +dst):\n%s", diff)
	}
}

// TestReadAheadAfterRedaction: a Log's read that continues the one before it never answers
// from rows read ahead before a redaction that the Store has returned since.
func TestReadAheadAfterRedaction(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	ctx := t.Context()
	appendErasable(t, st, "eng", 10)
	log := st.Log("eng")
	first, err := log.ReadBefore(ctx, 0, 4) // rows 10 to 7, and 6 to 4 read ahead
	if err != nil || first.Next != 7 {
		t.Fatalf("first page: next %d, %v; want 7", first.Next, err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Corrects: 6, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	next, err := log.ReadBefore(ctx, first.Next, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkRedacted(t, "the next page after the redaction of row 6", next.Messages, 6)
}

// checkRedactionWhilePaused (TestStandbyLagAndFaults): with the standby's replay paused
// after a redaction through the Store, a read below a bound that the standby shows whole
// (it holds the row below the bound) still never returns the erased content: the Store
// knows of a commit the standby has not replayed, which may have changed the rows below.
func checkRedactionWhilePaused(t *testing.T, c *cluster) {
	ctx := t.Context()
	primary, standbys := c.database(t)
	st := mustOpen(t, primary, pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(100*time.Millisecond))
	alone := mustOpen(t, standbys[0])
	appendErasable(t, st, "eng", 5)
	caughtUp(t, primary, standbys[0])
	c.pause(t, 0)
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Corrects: 2, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	if page := mustRead(t, alone.Log("eng"), 4, 10); len(page.Messages) != 3 || page.Messages[1].Content != erased {
		t.Fatalf("the paused standby reads %+v below 4, want rows 3 to 1 as before the redaction: the lag is not real", page.Messages)
	}
	page := mustRead(t, st.Log("eng"), 4, 10)
	if len(page.Messages) != 3 {
		t.Fatalf("a read below 4 through the Store: %d rows, want 3", len(page.Messages))
	}
	checkRedacted(t, "a read below 4 through the Store after its redaction of row 2", page.Messages[1:], 2)
}

// checkOtherStoresRedactionWhilePaused (TestStandbyLagAndFaults): a redaction another
// Store committed while the standby's replay is paused is never undone by a read through
// the Store, from the newest or below a bound: the Store's own watch of the primary raises
// the desk's fence once the redaction's notification comes, and a Store without one learns
// the desk's head from the primary at each read, a kept Log's read where its last one ended
// included. A row the other Store appended shows too,
// so a state that other Store's reader committed is never ahead of what this Store reads.
func checkOtherStoresRedactionWhilePaused(t *testing.T, c *cluster) {
	for _, watched := range []bool{true, false} {
		t.Run(fmt.Sprint("watched=", watched), func(t *testing.T) {
			ctx := t.Context()
			primary, standbys := c.database(t)
			opts := []pgstore.Option{pgstore.WithStandbys(standbys[0]), pgstore.WithStandbyWait(100 * time.Millisecond)}
			if !watched {
				opts = append(opts, pgstore.WithoutFenceWatch())
			}
			st := mustOpen(t, primary, opts...)
			other := mustOpen(t, primary)
			alone := mustOpen(t, standbys[0])
			appendErasable(t, other, "eng", 5)
			caughtUp(t, primary, standbys[0])
			if page := mustRead(t, st.Log("eng"), 0, 10); len(page.Messages) != 5 || page.Messages[2].Content != erased {
				t.Fatalf("before the redaction the Store reads %+v, want rows 5 to 1", page.Messages)
			}
			kept := st.Log("eng") // a Log kept across requests, as a server's fan-out keeps one
			if first := mustRead(t, kept, 0, 1); first.Next != 5 {
				t.Fatalf("the kept Log's first read ends at %d, want 5", first.Next)
			}
			c.pause(t, 0)
			redaction, err := other.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Corrects: 3, Redacted: true})
			if err != nil {
				t.Fatal(err)
			}
			if page := mustRead(t, alone.Log("eng"), 0, 10); len(page.Messages) != 5 || page.Messages[2].Content != erased {
				t.Fatalf("the paused standby reads %+v, want rows 5 to 1 as before the redaction: the lag is not real", page.Messages)
			}
			if watched {
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
					if fence, listening := pgstore.Fence(st, "eng"); fence >= int64(redaction.Seq) && listening {
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("the Store's watch did not hear of the redaction within 10 s")
					}
				}
			} else if _, listening := pgstore.Fence(st, "eng"); listening {
				t.Fatal("a Store opened WithoutFenceWatch watches the primary")
			}
			page := mustRead(t, st.Log("eng"), 0, 10)
			if len(page.Messages) != 6 || page.Messages[0].Corrects != 3 {
				t.Fatalf("a read through the Store after another Store's redaction: %+v, want the redaction (row 6) and rows 5 to 1", page.Messages)
			}
			checkRedacted(t, "a read through the Store after another Store's redaction of row 3", page.Messages[3:], 3)
			below := mustRead(t, st.Log("eng"), 5, 10)
			if len(below.Messages) != 4 {
				t.Fatalf("a read below 5 through the Store: %d rows, want 4", len(below.Messages))
			}
			checkRedacted(t, "a read below 5 through the Store after another Store's redaction of row 3", below.Messages[1:], 3)
			later := mustRead(t, kept, 5, 10)
			if len(later.Messages) != 4 {
				t.Fatalf("the kept Log's later read below 5: %d rows, want 4", len(later.Messages))
			}
			checkRedacted(t, "the kept Log's later read below 5, where its first read ended, after another Store's redaction of row 3", later.Messages[1:], 3)
		})
	}
}

// TestWatchNamesCorrections: a correction's commit notifies the Watches of other Stores
// like any append, and once a Store's Watch has named the desk, its Logs no longer answer
// from rows they read ahead before: the redaction's content is gone from them too.
func TestWatchNamesCorrections(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	ctx := t.Context()
	other := mustOpen(t, dsn)
	names := watch(t, other)
	appendErasable(t, st, "eng", 10)
	awaitNames(t, names, 10*time.Second, "eng")
	log := other.Log("eng")
	first, err := log.ReadBefore(ctx, 0, 4) // rows 10 to 7, and 6 to 4 read ahead
	if err != nil || first.Next != 7 {
		t.Fatalf("first page: next %d, %v; want 7", first.Next, err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Corrects: 6, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	awaitNames(t, names, 10*time.Second, "eng")
	next, err := log.ReadBefore(ctx, first.Next, 2)
	if err != nil {
		t.Fatal(err)
	}
	checkRedacted(t, "the next page of the watching Store after the redaction of row 6", next.Messages, 6)
}

// appendErasable appends n rows of erased content to desk, rows 1 to n of a new desk.
func appendErasable(t *testing.T, st *pgstore.Store, desk string, n int) {
	t.Helper()
	rows := make([]transcript.Message, n)
	for i := range rows {
		rows[i] = transcript.Message{Author: alice, Content: erased}
	}
	if err := st.AppendBatch(t.Context(), desk, rows); err != nil {
		t.Fatal(err)
	}
}

// checkRedacted reports an error unless rows begin with row seq, redacted and empty.
func checkRedacted(t *testing.T, what string, rows []transcript.Message, seq transcript.Sequence) {
	t.Helper()
	if len(rows) == 0 || rows[0].Seq != seq || rows[0].Content != "" || !rows[0].Redacted {
		t.Errorf("%s: %+v, want row %d first, redacted", what, rows, seq)
	}
}
