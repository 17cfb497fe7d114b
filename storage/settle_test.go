package storage_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// TestSettleBatch: new rows are numbered after base, a message whose key is present is the
// stored row and takes no number, a BatchParent naming it resolves to the stored row's Seq,
// and a reply to an aside of the batch gets its readers.
func TestSettleBatch(t *testing.T) {
	op, bot := transcript.Operator(), transcript.Agent("bot", "Bot")
	stored := map[transcript.Sequence]transcript.Message{4: {Seq: 4, Author: op, Content: "old"}}
	held := transcript.Message{Seq: 5, Author: op, Content: "again", Key: "k"}
	msgs := []transcript.Message{
		{Author: op, Content: "again", Key: "k"},                                // present: row 5
		{Author: bot, Content: "reply to 5", Parent: transcript.BatchParent(0)}, // row 7
		{Author: op, Content: "aside", Audience: []transcript.Author{bot}},      // row 8
		{Author: bot, Content: "reply to the aside", Parent: 8},                 // row 9, to the operator
		{Author: op, Content: "reply to 4", Parent: 4},                          // row 10
	}
	settled, i, err := settleBatch(msgs, 6, stored, map[string]*transcript.Message{"k": &held})
	rows, added := settled.Rows, settled.Added
	if err != nil {
		t.Fatalf("SettleBatch = message %d: %v", i, err)
	}
	var seqs, parents []transcript.Sequence
	for _, r := range rows {
		seqs, parents = append(seqs, r.Seq), append(parents, r.Parent)
	}
	if want := []transcript.Sequence{5, 7, 8, 9, 10}; !slices.Equal(seqs, want) {
		t.Errorf("seqs %v, want %v", seqs, want)
	}
	if want := []transcript.Sequence{0, 5, 0, 8, 4}; !slices.Equal(parents, want) {
		t.Errorf("parents %v, want %v", parents, want)
	}
	if len(added) != 4 || added[0].Seq != 7 {
		t.Errorf("added %+v, want the four new rows from 7", added)
	}
	if a := rows[3].Audience; len(a) != 1 || !a[0].Same(op) {
		t.Errorf("the reply to the aside has audience %v, want the operator", a)
	}
	if msgs[1].Parent != transcript.BatchParent(0) || msgs[3].Audience != nil {
		t.Error("SettleBatch modified its messages")
	}
}

// TestSettleBatchRefusals: a parent that is no older row, or names no stored one, and a
// misplaced BatchParent are refused with ErrNoParent, naming the message's index.
func TestSettleBatchRefusals(t *testing.T) {
	op := transcript.Operator()
	root := transcript.Message{Author: op, Content: "x"}
	reply := func(p transcript.Sequence) transcript.Message { m := root; m.Parent = p; return m }
	tests := []struct {
		name   string
		msgs   []transcript.Message
		index  int
		reason string
	}{
		{"parent past the head", []transcript.Message{reply(9)}, 0, "parent 9 is not a row of the desk (its newest row is 3)"},
		{"parent naming the row itself", []transcript.Message{root, reply(5)}, 1, "parent 5 is not older than the message, which would be row 5 (the desk's newest row is 3)"},
		{"parent not stored", []transcript.Message{reply(2)}, 0, "parent 2 is not a row of the desk"},
		{"BatchParent naming itself", []transcript.Message{root, reply(transcript.BatchParent(1))}, 1, "not an earlier message of the batch"},
	}
	for _, tt := range tests {
		_, i, err := settleBatch(tt.msgs, 3, nil, nil)
		if i != tt.index || !errors.Is(err, transcript.ErrNoParent) || !errors.Is(err, transcript.ErrInvalidMessage) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: SettleBatch = message %d: %v; want message %d, ErrNoParent, saying %q", tt.name, i, err, tt.index, tt.reason)
		}
	}
	single := storage.Batch{Desk: "eng", Messages: []transcript.Message{reply(transcript.BatchParent(0))}, Single: true}
	if err := single.Check(); !errors.Is(err, transcript.ErrNoParent) || !strings.Contains(err.Error(), "outside a batch") {
		t.Errorf("Batch.Check of a BatchParent outside a batch = %v", err)
	}
}

// TestSettleRestoredAgrees: a restored correction must agree with the row it corrects as the
// export holds it, so that restoring can never leave a redaction's target readable.
func TestSettleRestoredAgrees(t *testing.T) {
	ana := transcript.Person("ana", "Ana")
	stored := map[transcript.Sequence]transcript.Message{1: {Seq: 1, Author: ana, Content: "password hunter2"}}
	tests := []struct {
		name string
		rows []transcript.Message
	}{
		{"an edit after a redaction", []transcript.Message{
			{Author: ana, Redacted: true, Corrects: 1}, {Author: ana, Content: "again", Corrects: 1}}},
		{"a redaction of a row that is not redacted", []transcript.Message{
			{Author: ana, Content: "x", Revised: 3}, {Author: ana, Redacted: true, Corrects: 2}}},
		{"an edit whose content the row does not hold", []transcript.Message{
			{Author: ana, Content: "x", Revised: 3}, {Author: ana, Content: "y", Corrects: 2}}},
		{"a revised naming no correction", []transcript.Message{
			{Author: ana, Content: "x", Revised: 3}, {Author: ana, Content: "y"}}},
		{"a redacted row without revised", []transcript.Message{{Author: ana, Redacted: true}}},
		{"revised on a correction", []transcript.Message{
			{Author: ana, Content: "x", Revised: 3}, {Author: ana, Content: "x", Corrects: 2, Revised: 3}}},
	}
	for _, tt := range tests {
		err := error(nil)
		for _, m := range tt.rows {
			if err = storage.ValidateRestored(m); err != nil {
				break
			}
		}
		if err == nil {
			_, _, err = settleRestored(tt.rows, 1, stored, nil)
		}
		if !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s: restored with %v", tt.name, err)
		}
	}
	good := []transcript.Message{
		{Author: ana, Redacted: true, Revised: 4},
		{Author: ana, Redacted: true, Corrects: 2},
		{Author: ana, Redacted: true, Corrects: 2},
	}
	if _, i, err := settleRestored(good, 1, stored, nil); err != nil {
		t.Errorf("an export's erased row, its erased edit and its redaction: message %d: %v", i, err)
	}
}

// TestSettleRestoredCorrectsStoredRow: a restored correction of a row stored before the
// batch (a later export's correction of a row an earlier one brought) is applied as an
// append applies it, erased corrections and redactions included; one that would give a
// redacted row content is refused.
func TestSettleRestoredCorrectsStoredRow(t *testing.T) {
	ana := transcript.Person("ana", "Ana")
	stored := map[transcript.Sequence]transcript.Message{1: {Seq: 1, Author: ana, Content: "deploy at 22:00"}}
	for _, tt := range []struct {
		name string
		rows []transcript.Message
		want []storage.Revision
	}{
		{"an edit", []transcript.Message{{Author: ana, Content: "deploy at 23:00", Corrects: 1}},
			[]storage.Revision{{Target: 1, Content: "deploy at 23:00", Revised: 2}}},
		{"an erased edit and its redaction", []transcript.Message{
			{Author: ana, Redacted: true, Corrects: 1}, {Author: transcript.Operator(), Redacted: true, Corrects: 1}},
			[]storage.Revision{{Target: 1, Redacted: true, Revised: 3}}},
	} {
		settled, _, err := settleRestored(tt.rows, 1, stored, nil)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if diff := cmp.Diff(tt.want, settled.Revisions); diff != "" {
			t.Errorf("%s: revisions (-want +got):\n%s", tt.name, diff)
		}
	}
	redacted := map[transcript.Sequence]transcript.Message{1: {Seq: 1, Author: ana, Redacted: true, Revised: 2}, 2: {Seq: 2, Author: ana, Redacted: true, Corrects: 1}}
	_, _, err := settleRestored([]transcript.Message{{Author: ana, Content: "again", Corrects: 1}}, 2, redacted, nil)
	if !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Errorf("an edit of a stored row that was redacted: restored with %v", err)
	}
}

// TestSettleReplayInBatch: a replayed row is returned, and matched, as the batch leaves it.
func TestSettleReplayInBatch(t *testing.T) {
	ana := transcript.Person("ana", "Ana")
	row := transcript.Message{Seq: 1, Author: ana, Content: "password hunter2", Key: "k1"}
	stored := map[transcript.Sequence]transcript.Message{1: row}
	settled, i, err := settleBatch([]transcript.Message{
		{Author: ana, Content: "password hunter2", Key: "k1"},
		{Author: ana, Redacted: true, Corrects: transcript.BatchParent(0)},
	}, 1, stored, map[string]*transcript.Message{"k1": &row})
	if err != nil {
		t.Fatalf("message %d: %v", i, err)
	}
	if r := settled.Rows[0]; r.Content != "" || !r.Redacted || r.Revised != 2 {
		t.Errorf("the replayed row is returned as %+v, want it erased", r)
	}
	_, _, err = settleBatch([]transcript.Message{
		{Author: ana, Content: "new words", Corrects: 1},
		{Author: ana, Content: "new words", Key: "k1"},
	}, 1, stored, map[string]*transcript.Message{"k1": &row})
	if err != nil {
		t.Errorf("a replay of the row as an earlier edit of the batch left it: %v", err)
	}
}

// TestSettleEditAndRedactionInBatch: an edit and then a redaction of one row in one batch
// leave the row erased and revised by the redaction, and erase the edit too, whether the
// row is stored before the batch or is the batch's own.
func TestSettleEditAndRedactionInBatch(t *testing.T) {
	ana := transcript.Person("ana", "Ana")
	edit := func(target transcript.Sequence) transcript.Message {
		return transcript.Message{Author: ana, Content: "edited", Corrects: target}
	}
	redact := func(target transcript.Sequence) transcript.Message {
		return transcript.Message{Author: ana, Redacted: true, Corrects: target}
	}
	erased := func(m transcript.Message) bool { return m.Redacted && m.Content == "" }

	t.Run("stored row", func(t *testing.T) {
		stored := map[transcript.Sequence]transcript.Message{1: {Seq: 1, Author: ana, Content: "original"}}
		settled, i, err := settleBatch([]transcript.Message{edit(1), redact(1)}, 1, stored, nil)
		if err != nil {
			t.Fatalf("SettleBatch = message %d: %v", i, err)
		}
		if len(settled.Added) != 2 || settled.Added[0].Seq != 2 || settled.Added[1].Seq != 3 {
			t.Fatalf("added %+v, want the edit as row 2 and the redaction as row 3", settled.Added)
		}
		if e := settled.Added[0]; !erased(e) {
			t.Errorf("the edit, row 2, is %+v: want it erased by the redaction after it", e)
		}
		want := []storage.Revision{{Target: 1, Redacted: true, Revised: 3}}
		if !slices.Equal(settled.Revisions, want) {
			t.Errorf("revisions %+v, want %+v", settled.Revisions, want)
		}
	})
	t.Run("row of the batch", func(t *testing.T) {
		msgs := []transcript.Message{
			{Author: ana, Content: "original"},
			edit(transcript.BatchParent(0)),
			redact(transcript.BatchParent(0)),
		}
		settled, i, err := settleBatch(msgs, 0, nil, nil)
		if err != nil {
			t.Fatalf("SettleBatch = message %d: %v", i, err)
		}
		if len(settled.Added) != 3 || len(settled.Revisions) != 0 {
			t.Fatalf("added %+v and revisions %+v, want three new rows and no revision", settled.Added, settled.Revisions)
		}
		if r := settled.Added[0]; !erased(r) || r.Revised != 3 {
			t.Errorf("row 1 is %+v: want it erased and revised by row 3", r)
		}
		if e := settled.Added[1]; !erased(e) || e.Corrects != 1 {
			t.Errorf("the edit, row 2, is %+v: want it erased by the redaction after it, correcting row 1", e)
		}
	})
}

// settleBatch settles msgs as the rows after base through a storage.Batch, and returns
// the index of the message refused and why as well (the *AppendError's Index and Err).
func settleBatch(msgs []transcript.Message, base transcript.Sequence, stored map[transcript.Sequence]transcript.Message, present map[string]*transcript.Message) (storage.Settlement, int, error) {
	return settle(storage.Batch{Desk: "eng", Messages: msgs}, base, stored, present)
}

// settleRestored is settleBatch for rows an export wrote (a Batch with Restore).
func settleRestored(msgs []transcript.Message, base transcript.Sequence, stored map[transcript.Sequence]transcript.Message, present map[string]*transcript.Message) (storage.Settlement, int, error) {
	return settle(storage.Batch{Desk: "eng", Messages: msgs, Restore: true}, base, stored, present)
}

func settle(b storage.Batch, base transcript.Sequence, stored map[transcript.Sequence]transcript.Message, present map[string]*transcript.Message) (storage.Settlement, int, error) {
	settled, err := b.Settle(base, stored, present)
	if ae := (*transcript.AppendError)(nil); errors.As(err, &ae) {
		return settled, ae.Index, ae.Err
	}
	return settled, -1, err
}
