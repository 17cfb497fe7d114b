package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// atOnce bounds an append that must not wait: one whose store holds no other write. A
// refused write that left its transaction open would hold the store's writer, or the
// desk's lock, and the append would wait for it until its deadline.
const atOnce = 5 * time.Second

// appendAtOnce is mustAppend bounded by atOnce; after says what came before it.
func appendAtOnce(t *testing.T, st Store, desk string, m transcript.Message, want transcript.Sequence, after string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), atOnce)
	defer cancel()
	got, err := st.Append(ctx, desk, m)
	switch {
	case err != nil:
		t.Fatalf("the append after %s: %v, want it stored at once (within %v): did the write before it leave its transaction open?", after, err, atOnce)
	case got.Seq != want:
		t.Fatalf("the append after %s: seq %d, want %d", after, got.Seq, want)
	}
}

// checkRefusalsEndTheirWrite: after each kind of refusal, through Append and AppendBatch
// (a bad row, content over the limit, a missing parent, a misplaced BatchParent, a key
// conflict, a key twice in a batch, each refusal of the reply rule, a bad desk name), and
// after a replay of present keys, which stores nothing either, the next append is stored at
// once: what the refused write began, it ended.
func checkRefusalsEndTheirWrite(t *testing.T, st Store) {
	const desk = "refusals"
	op, triage, review := asideOperator, asideTriage, asideReview
	keyed := transcript.Message{Author: op, Content: "keyed", Key: "k-1"}
	mustAppend(t, st, desk, keyed, 1)
	mustAppend(t, st, desk, transcript.Message{Author: op, Content: asideSecret, Audience: []transcript.Author{triage}}, 2)
	const aside = 2
	conflict := keyed
	conflict.Content = "another message under the same key"

	for _, c := range []struct {
		name     string
		desk     string
		msg      func(next transcript.Sequence) transcript.Message // next: the Seq it would take
		sentinel error                                             // nil: a replay, which stores nothing and is no error
	}{
		{"an invalid author", desk, func(transcript.Sequence) transcript.Message {
			return transcript.Message{Author: transcript.Agent("", "Nameless"), Content: "x"}
		}, transcript.ErrInvalidMessage},
		{"content over the limit", desk, func(transcript.Sequence) transcript.Message {
			return root(strings.Repeat("x", transcript.MaxContent+1))
		}, transcript.ErrInvalidMessage},
		{"content not UTF-8", desk, func(transcript.Sequence) transcript.Message { return root("\xff") }, transcript.ErrInvalidMessage},
		{"a parent not in the desk", desk, func(next transcript.Sequence) transcript.Message { return reply(next+50, "x") }, transcript.ErrNoParent},
		{"a parent that is the message itself", desk, func(next transcript.Sequence) transcript.Message { return reply(next, "x") }, transcript.ErrNoParent},
		{"a key the desk holds, on another message", desk, func(transcript.Sequence) transcript.Message { return conflict }, transcript.ErrKeyConflict},
		{"a reply by a reader the parent leaves out", desk, func(transcript.Sequence) transcript.Message {
			return transcript.Message{Parent: aside, Author: review, Content: "may I?"}
		}, transcript.ErrNotReadable},
		{"a reply to an aside naming other readers", desk, func(transcript.Sequence) transcript.Message {
			return transcript.Message{Parent: aside, Author: triage, Content: "x", Audience: []transcript.Author{review}}
		}, transcript.ErrInvalidAudience},
		{"an invalid desk name", "", func(transcript.Sequence) transcript.Message { return root("x") }, transcript.ErrInvalidDesk},
		{"a replay of a present key", desk, func(transcript.Sequence) transcript.Message { return keyed }, nil},
	} {
		h := head(t, st, desk)
		_, err := st.Append(t.Context(), c.desk, c.msg(h+1))
		refused(t, "Append of a message with "+c.name, err, c.sentinel)
		appendAtOnce(t, st, desk, root("after Append of "+c.name), h+1, "Append of a message with "+c.name)

		// In a batch, the message comes after a good row and a reply to it, so that the batch
		// has begun its rows when it meets the bad one; a replay comes alone, so that the
		// batch stores nothing.
		h++
		batch := []transcript.Message{root("good first"), reply(transcript.BatchParent(0), "good second"), c.msg(h + 3)}
		if c.sentinel == nil {
			batch = batch[2:]
		}
		err = st.AppendBatch(t.Context(), c.desk, batch)
		refused(t, "AppendBatch ending with a message with "+c.name, err, c.sentinel)
		appendAtOnce(t, st, desk, root("after AppendBatch ending with "+c.name), h+1, "AppendBatch ending with "+c.name)
	}

	for _, c := range []struct {
		name     string
		batch    func(first transcript.Sequence) []transcript.Message // first: the Seq the batch's first row would take
		sentinel error
	}{
		{"one key twice", func(transcript.Sequence) []transcript.Message {
			return []transcript.Message{{Author: op, Content: "a", Key: "k-2"}, {Author: op, Content: "b", Key: "k-2"}}
		}, transcript.ErrDuplicateKey},
		{"a BatchParent naming a later message", func(transcript.Sequence) []transcript.Message {
			return []transcript.Message{root("a"), reply(transcript.BatchParent(2), "b"), root("c")}
		}, transcript.ErrInvalidMessage},
		{"a parent that is a later message of the batch", func(first transcript.Sequence) []transcript.Message {
			return []transcript.Message{root("a"), reply(first+2, "b"), root("c")}
		}, transcript.ErrNoParent},
	} {
		h := head(t, st, desk)
		err := st.AppendBatch(t.Context(), desk, c.batch(h+1))
		refused(t, "AppendBatch with "+c.name, err, c.sentinel)
		appendAtOnce(t, st, desk, root("after AppendBatch with "+c.name), h+1, "AppendBatch with "+c.name)
	}
}

// refused checks that err, the error of what, matches sentinel; for no sentinel, that it
// is nil.
func refused(t *testing.T, what string, err, sentinel error) {
	t.Helper()
	switch {
	case sentinel == nil && err != nil:
		t.Errorf("%s: %v, want no error", what, err)
	case sentinel != nil && !errors.Is(err, sentinel):
		t.Errorf("%s: error %v, want one matching %v", what, err, sentinel)
	}
}
