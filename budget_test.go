package transcript_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

// TestProjectionWithinBytes: the oldest messages go first, each with the elisions before
// it; a thread's root and the elisions before it stay; Dropped counts what went.
func TestProjectionWithinBytes(t *testing.T) {
	msg := func(seq transcript.Sequence, n int) transcript.Message {
		return transcript.Message{Seq: seq, Content: strings.Repeat("x", n)}
	}
	eli := func(from, through transcript.Sequence) transcript.Elision {
		return transcript.Elision{From: from, Through: through, Count: int(through - from + 1)}
	}
	p := transcript.Projection{
		Messages: []transcript.Message{msg(2, 10), msg(4, 10), msg(6, 10), msg(8, 10)},
		Elided:   []transcript.Elision{eli(1, 1), eli(3, 3), eli(5, 5), eli(7, 7)},
		Head:     8,
	}
	for _, tc := range []struct {
		name   string
		thread transcript.Sequence
		max    int
		want   transcript.Projection
	}{
		{"no bound", 0, 0, p},
		{"all fit", 0, 40, p},
		{"channel", 0, 25, transcript.Projection{
			Messages: []transcript.Message{msg(6, 10), msg(8, 10)}, Elided: []transcript.Elision{eli(5, 5), eli(7, 7)}, Head: 8, Dropped: 2}},
		{"the newest alone over the budget", 0, 5, transcript.Projection{
			Messages: []transcript.Message{msg(8, 10)}, Elided: []transcript.Elision{eli(7, 7)}, Head: 8, Dropped: 3}},
		{"a thread's root is pinned", 2, 25, transcript.Projection{
			Messages: []transcript.Message{msg(2, 10), msg(8, 10)}, Elided: []transcript.Elision{eli(1, 1), eli(7, 7)}, Head: 8, Dropped: 2}},
		{"a pinned root over the budget keeps the newest", 2, 5, transcript.Projection{
			Messages: []transcript.Message{msg(2, 10), msg(8, 10)}, Elided: []transcript.Elision{eli(1, 1), eli(7, 7)}, Head: 8, Dropped: 2}},
		{"a thread whose root is not shown pins nothing", 1, 25, transcript.Projection{
			Messages: []transcript.Message{msg(6, 10), msg(8, 10)}, Elided: []transcript.Elision{eli(5, 5), eli(7, 7)}, Head: 8, Dropped: 2}},
	} {
		if diff := cmp.Diff(tc.want, p.WithinBytes(tc.thread, tc.max)); diff != "" {
			t.Errorf("%s: WithinBytes(%d, %d) (-want +got):\n%s", tc.name, tc.thread, tc.max, diff)
		}
	}
	if got := p.DropOldest(2, 10); len(got.Messages) != 1 || got.Messages[0].Seq != 2 || got.Dropped != 3 {
		t.Errorf("DropOldest of more than there are: %+v, want the root alone, dropped 3", got)
	}
	if len(p.Messages) != 4 || p.Dropped != 0 {
		t.Errorf("WithinBytes changed its receiver: %+v", p)
	}
}
