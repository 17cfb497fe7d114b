package render_test

import (
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// TestBlocks checks that Blocks puts messages and elisions in sequence order, each as its
// envelope or tag, the viewer's own messages enveloped too.
func TestBlocks(t *testing.T) {
	me := transcript.Agent("triage", "Triage")
	msgs := []transcript.Message{
		{Seq: 2, Author: transcript.Person("ana", "Ana"), Content: "a <b>"},
		{Seq: 5, Author: me, Content: "mine"},
	}
	elided := []transcript.Elision{
		{From: 1, Through: 1, Count: 1, Readers: []transcript.Author{transcript.Operator()}},
		{From: 3, Through: 4, Count: 2, Readers: []transcript.Author{transcript.Operator()}},
		{From: 6, Through: 9, Count: 3, Readers: []transcript.Author{transcript.Operator()}},
	}
	blocks := render.Blocks(msgs, elided...)
	want := []string{
		render.ElisionTag(elided[0]),
		render.Envelope(msgs[0]),
		render.ElisionTag(elided[1]),
		render.Envelope(msgs[1]),
		render.ElisionTag(elided[2]),
	}
	if len(blocks) != len(want) {
		t.Fatalf("Blocks gave %d blocks, want %d", len(blocks), len(want))
	}
	for i, b := range blocks {
		if b.Text != want[i] {
			t.Errorf("block %d = %q, want %q", i, b.Text, want[i])
		}
		if (b.Message == nil) == (b.Elision == nil) {
			t.Errorf("block %d: want exactly one of Message and Elision, got %v and %v", i, b.Message, b.Elision)
		}
	}
	if blocks[3].Message != &msgs[1] || blocks[2].Elision != &elided[1] {
		t.Error("blocks do not point into the slices given")
	}
}
