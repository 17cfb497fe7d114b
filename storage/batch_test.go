package storage_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// TestBatchReads: Reads names each stored row the batch may name once, ascending, the
// targets among them, and the keys in order; BatchParents and 0 name none.
func TestBatchReads(t *testing.T) {
	op := transcript.Operator()
	b := storage.Batch{Desk: "eng", Messages: []transcript.Message{
		{Author: op, Content: "a", Parent: 7, Key: "k1"},
		{Author: op, Content: "b", Parent: transcript.BatchParent(0)},
		{Author: op, Content: "c", Corrects: 3},
		{Author: op, Content: "d", Parent: 3, Key: "k2"},
		{Author: op, Content: "e", Corrects: 7},
	}}
	seqs, targets, keys := b.Reads()
	if want := []transcript.Sequence{3, 7}; !slices.Equal(seqs, want) {
		t.Errorf("seqs %v, want %v", seqs, want)
	}
	if want := []transcript.Sequence{3, 7}; !slices.Equal(targets, want) {
		t.Errorf("targets %v, want %v", targets, want)
	}
	if want := []string{"k1", "k2"}; !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
}

// TestBatchRefusals: every refusal of a Batch is an *AppendError naming the desk and the
// message (-1 for a Single batch), whatever step found it: the desk name, a message alone,
// one key twice, or the desk's rows.
func TestBatchRefusals(t *testing.T) {
	op := transcript.Operator()
	good := transcript.Message{Author: op, Content: "x"}
	tests := []struct {
		name  string
		b     storage.Batch
		index int
		kind  error
		text  string
	}{
		{"bad desk", storage.Batch{Desk: "", Messages: []transcript.Message{good}}, -1, transcript.ErrInvalidDesk,
			`append to desk "": invalid desk name: empty`},
		{"bad message", storage.Batch{Desk: "eng", Messages: []transcript.Message{good, {Author: op, Content: "x", Seq: 4}}}, 1, transcript.ErrInvalidMessage,
			`append batch to desk "eng": message 1: seq 4 set by the caller (the log assigns it)`},
		{"key twice", storage.Batch{Desk: "eng", Messages: []transcript.Message{{Author: op, Content: "x", Key: "k"}, {Author: op, Content: "y", Key: "k"}}}, 1, transcript.ErrDuplicateKey,
			`append batch to desk "eng": message 1: key "k" is message 0's too`},
		{"missing parent, single", storage.Batch{Desk: "eng", Single: true, Messages: []transcript.Message{{Author: op, Content: "x", Parent: 2}}}, -1, transcript.ErrNoParent,
			`append to desk "eng": parent 2 is not a row of the desk`},
	}
	for _, tt := range tests {
		_, err := tt.b.Settle(5, nil, nil)
		var ae *transcript.AppendError
		if !errors.As(err, &ae) || ae.Desk != tt.b.Desk || ae.Index != tt.index || !errors.Is(err, tt.kind) || err.Error() != tt.text {
			t.Errorf("%s: Settle = %v, want an *AppendError for message %d matching %v: %q", tt.name, err, tt.index, tt.kind, tt.text)
		}
	}
}
