package transcript_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
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
	settled, i, err := transcript.SettleBatch(msgs, 6, stored, map[string]*transcript.Message{"k": &held})
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
		_, i, err := transcript.SettleBatch(tt.msgs, 3, nil, nil)
		if i != tt.index || !errors.Is(err, transcript.ErrNoParent) || !errors.Is(err, transcript.ErrInvalidMessage) || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("%s: SettleBatch = message %d: %v; want message %d, ErrNoParent, saying %q", tt.name, i, err, tt.index, tt.reason)
		}
	}
	if err := transcript.CheckBatchParent(transcript.BatchParent(0), -1); !errors.Is(err, transcript.ErrNoParent) || !strings.Contains(err.Error(), "outside a batch") {
		t.Errorf("CheckBatchParent outside a batch = %v", err)
	}
}
