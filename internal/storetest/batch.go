package storetest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// checkBatch: AppendBatch numbers its rows consecutively after the desk's head and resolves
// BatchParent to the Seq of the batch's earlier message.
func checkBatch(t *testing.T, st Store) {
	const desk = "batch"
	if err := st.AppendBatch(t.Context(), desk, nil); err != nil {
		t.Errorf("AppendBatch of no messages: %v", err)
	}
	if desks := mustDesks(t, st); len(desks) != 0 {
		t.Errorf("after an empty batch, Desks = %q, want none", desks)
	}
	want := []transcript.Message{
		mustAppend(t, st, desk, root("before the batch"), 1),
		mustAppend(t, st, desk, reply(1, "reply before the batch"), 2),
	}
	batch := []transcript.Message{
		root("batch root"), // 3
		reply(transcript.BatchParent(0), "first reply"),                // 4 → 3
		reply(transcript.BatchParent(1), "reply to a reply"),           // 5 → 4
		reply(1, "late reply to an older root"),                        // 6 → 1
		{Author: transcript.System("join", "Joins"), Content: " "},     // 7
		reply(transcript.BatchParent(4), "reply to the blank root"),    // 8 → 7
		reply(transcript.BatchParent(0), "second reply to batch root"), // 9 → 3
		reply(3, "parent given as a Seq, the batch's first row"),       // 10 → 3
	}
	if err := st.AppendBatch(t.Context(), desk, batch); err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	parents := []transcript.Sequence{0, 3, 4, 1, 0, 7, 3, 3}
	rows := mustReadAll(t, st, desk)
	if len(rows) != len(want)+len(batch) {
		t.Fatalf("after a batch of %d, desk %q holds %d rows, want %d", len(batch), desk, len(rows), len(want)+len(batch))
	}
	for i, m := range batch {
		m.Seq = transcript.Sequence(3 + i)
		m.Parent = parents[i]
		m.At = rows[2+i].At // stamped by the store; StoredRow checks stamps
		want = append(want, m)
	}
	checkRows(t, "rows after AppendBatch", rows, want)
	mustAppend(t, st, desk, root("after the batch"), transcript.Sequence(len(want)+1))

	bad := []struct {
		name  string
		batch []transcript.Message
	}{
		{"BatchParent naming itself", []transcript.Message{root("a"), reply(transcript.BatchParent(1), "b")}},
		{"BatchParent naming a later message", []transcript.Message{reply(transcript.BatchParent(1), "a"), root("b")}},
		{"BatchParent beyond the batch", []transcript.Message{root("a"), reply(transcript.BatchParent(7), "b")}},
		{"BatchParent of a negative index", []transcript.Message{root("a"), reply(transcript.BatchParent(-1), "b")}},
		{"parent given as the message's own Seq", []transcript.Message{root("a"), reply(transcript.Sequence(len(want)+3), "b")}},
	}
	for _, c := range bad {
		h := head(t, st, desk)
		err := st.AppendBatch(t.Context(), desk, c.batch)
		if !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("AppendBatch with %s: error %v, want one matching transcript.ErrInvalidMessage", c.name, err)
		}
		if got := head(t, st, desk); got != h {
			t.Errorf("AppendBatch with %s: head moved from %d to %d", c.name, h, got)
		}
	}
	if got := head(t, st, desk); got != transcript.Sequence(len(want)+1) {
		t.Errorf("head = %d, want %d", got, len(want)+1)
	}
}

// checkLargeBatch: a batch of many rows of every shape (roots and replies by BatchParent and
// by Seq, asides and replies to them, keys, a key the desk holds, zero and given times,
// authors and audiences new and repeated) stores what Append stores when given the same
// messages one at a time: a store that writes a batch in parts writes every part alike.
func checkLargeBatch(t *testing.T, st Store) {
	const batchDesk, oneDesk = "large-batch", "one-at-a-time"
	present := transcript.Message{Author: transcript.Operator(), Content: "held", Key: "held"}
	for _, desk := range []string{batchDesk, oneDesk} {
		mustAppend(t, st, desk, root("before"), 1)
		mustAppend(t, st, desk, present, 2)
	}
	at := time.Date(2026, 3, 4, 5, 6, 7, 891011000, time.UTC)
	batch := make([]transcript.Message, 1000)
	for i := range batch {
		m := transcript.Message{
			Author:  transcript.Agent(fmt.Sprintf("agent-%d", i%7), fmt.Sprintf("Agent %d", i%5)),
			Content: fmt.Sprintf("row %d", i),
		}
		switch {
		case i == 600:
			m = present // skipped: the desk holds it
		case i%10 == 3:
			m.Audience = []transcript.Author{transcript.Person(fmt.Sprintf("p%d", i%3), ""), transcript.Operator()}
		case i%10 == 4:
			m.Parent = transcript.BatchParent(i - 1) // a reply to the aside before it, by its author
			m.Author = batch[i-1].Author
		case i%10 == 5 || i%10 == 6:
			m.Parent = transcript.BatchParent(i - i%10) // for 605 and 606, the row the desk holds
		case i%10 == 7:
			m.Parent = 1 // a row the desk holds
		}
		if i%3 == 0 {
			m.At = at.Add(time.Duration(i) * time.Second)
		}
		if i%2 == 0 && i != 600 {
			m.Key = fmt.Sprintf("key %d", i)
		}
		batch[i] = m
	}
	if err := st.AppendBatch(t.Context(), batchDesk, batch); err != nil {
		t.Fatalf("AppendBatch of %d messages: %v", len(batch), err)
	}
	seqs := make([]transcript.Sequence, len(batch)) // the one-at-a-time desk's row of each message
	for i, m := range batch {
		if j, ok := m.Parent.BatchIndex(); ok {
			m.Parent = seqs[j]
		}
		stored, err := st.Append(t.Context(), oneDesk, m)
		if err != nil {
			t.Fatalf("Append of batch message %d: %v", i, err)
		}
		seqs[i] = stored.Seq
	}
	got, want := mustReadAll(t, st, batchDesk), mustReadAll(t, st, oneDesk)
	if len(got) != len(want) {
		t.Fatalf("desk %q holds %d rows, desk %q %d; want the same", batchDesk, len(got), oneDesk, len(want))
	}
	stamped := map[string]bool{"before": true, "held": true} // the contents of the rows appended with a zero At
	for _, m := range batch {
		if m.At.IsZero() {
			stamped[m.Content] = true
		}
	}
	for i := range got {
		if stamped[got[i].Content] && got[i].Content == want[i].Content && !got[i].At.IsZero() {
			want[i].At = got[i].At // each append stamps its own time
		}
	}
	checkRows(t, fmt.Sprintf("desk %q against desk %q", batchDesk, oneDesk), got, want)
}

// checkBatchAllOrNothing: a batch with one bad message stores none of its messages.
func checkBatchAllOrNothing(t *testing.T, st Store) {
	const desk = "all-or-nothing"
	mustAppend(t, st, desk, root("kept"), 1)
	var batch []transcript.Message
	for i := range 500 {
		m := root(fmt.Sprintf("row %d", i))
		if i%3 != 0 {
			m = reply(transcript.BatchParent(i-i%3), m.Content)
		}
		batch = append(batch, m)
	}
	for _, last := range []struct {
		name string
		m    transcript.Message
	}{
		{"content not UTF-8", root("\xff")},
		{"content over the limit", root(strings.Repeat("é", transcript.MaxContent/2+1))},
		{"parent beyond the batch", reply(transcript.Sequence(len(batch)+5), "x")},
		{"BatchParent naming itself", reply(transcript.BatchParent(len(batch)), "x")},
		{"invalid author", transcript.Message{Author: transcript.Author{}, Content: "x"}},
	} {
		for _, target := range []string{desk, "new desk"} {
			err := st.AppendBatch(t.Context(), target, append(slices.Clip(batch), last.m))
			if !errors.Is(err, transcript.ErrInvalidMessage) {
				t.Errorf("AppendBatch to %q ending with %s: error %v, want one matching transcript.ErrInvalidMessage", target, last.name, err)
			}
		}
		if got := mustReadAll(t, st, desk); len(got) != 1 {
			t.Fatalf("after a batch ending with %s failed, desk %q holds %d rows, want 1", last.name, desk, len(got))
		}
		if got := mustDesks(t, st); !slices.Equal(got, []string{desk}) {
			t.Errorf("after a batch ending with %s failed, Desks = %q, want [%q]", last.name, got, desk)
		}
	}
	if err := st.AppendBatch(t.Context(), desk, batch); err != nil {
		t.Fatalf("AppendBatch of the good messages: %v", err)
	}
	rows := mustReadAll(t, st, desk)
	if len(rows) != len(batch)+1 {
		t.Fatalf("after the good batch, desk %q holds %d rows, want %d", desk, len(rows), len(batch)+1)
	}
	for i, m := range rows[1:] {
		wantParent := transcript.Sequence(0)
		if i%3 != 0 {
			wantParent = transcript.Sequence(2 + i - i%3)
		}
		if m.Seq != transcript.Sequence(i+2) || m.Parent != wantParent || m.Content != batch[i].Content {
			t.Fatalf("batch row %d stored as seq %d, parent %d, content %q; want seq %d, parent %d, content %q",
				i, m.Seq, m.Parent, m.Content, i+2, wantParent, batch[i].Content)
		}
	}
}

// ContentLimit checks a store's content limit of limit bytes: content of exactly limit bytes
// is stored intact by Append and AppendBatch, and content of limit+1 bytes is refused by both
// with an error matching transcript.ErrInvalidMessage. The limit counts bytes, not runes.
func ContentLimit(t *testing.T, st Store, limit int) {
	t.Helper()
	const desk = "content-limit"
	if limit < 2 {
		t.Fatalf("storetest: ContentLimit needs a limit of at least 2 bytes, got %d", limit)
	}
	fits := strings.Repeat("a", limit-2) + "é" // limit bytes, limit-1 runes
	over := strings.Repeat("a", limit-1) + "é" // limit+1 bytes, limit runes
	tooLong := strings.Repeat("a", limit+1)    // limit+1 bytes of ASCII
	m := mustAppend(t, st, desk, root(fits), 1)
	if m.Content != fits {
		t.Errorf("Append of %d bytes returned %d bytes", len(fits), len(m.Content))
	}
	if err := st.AppendBatch(t.Context(), desk, []transcript.Message{root(fits)}); err != nil {
		t.Errorf("AppendBatch of content of exactly %d bytes: %v", limit, err)
	}
	for _, content := range []string{over, tooLong} {
		if _, err := st.Append(t.Context(), desk, root(content)); !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("Append of content of %d bytes (limit %d): error %v, want one matching transcript.ErrInvalidMessage", len(content), limit, err)
		}
		if err := st.AppendBatch(t.Context(), desk, []transcript.Message{root("ok"), root(content)}); !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("AppendBatch of content of %d bytes (limit %d): error %v, want one matching transcript.ErrInvalidMessage", len(content), limit, err)
		}
	}
	rows := mustReadAll(t, st, desk)
	if len(rows) != 2 || rows[0].Content != fits || rows[1].Content != fits {
		t.Errorf("desk %q holds %d rows, want the 2 rows of %d bytes intact", desk, len(rows), limit)
	}
	mustAppend(t, st, desk, root("ok"), 3)
}
