package sharing_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// TestCorrectionsWithinBudget: a delta's corrections count toward its byte budget as its
// messages do, so that many large edits never make an answer larger than the budget (but
// for its first item), and each arrives once, on the read after the one that had no room.
func TestCorrectionsWithinBudget(t *testing.T) {
	ctx := context.Background()
	ana := transcript.Person("ana", "Ana")
	log := memlog.New()
	for _, m := range []transcript.Message{
		{Author: ana, Content: "one"}, {Author: ana, Content: "two"}, {Author: ana, Content: "three"},
		{Author: ana, Content: strings.Repeat("1", 100), Corrects: 1},
		{Author: ana, Content: "four"},
		{Author: ana, Content: strings.Repeat("2", 100), Corrects: 2},
		{Author: ana, Content: strings.Repeat("3", 100), Corrects: 3},
	} {
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	eng := transcript.Conversation{Desk: "eng"}
	state := sharing.Initialized(eng, 3)
	var got []transcript.Sequence
	for range 6 {
		plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: eng, Current: eng, State: state, Viewer: ana, MaxBytes: 150})
		if err != nil || plan.Reinitialize != 0 {
			t.Fatalf("Prepare = %+v, %v", plan, err)
		}
		d := plan.Delta
		size := 0
		var seqs []transcript.Sequence
		for _, m := range append(slices.Clone(d.Messages), d.Corrections...) {
			size += len(m.Content)
			seqs = append(seqs, m.Seq)
		}
		slices.Sort(seqs)
		got = append(got, seqs...)
		if size > 150 {
			t.Errorf("from watermark %d: %d bytes of content, over the budget of 150", state.Watermark, size)
		}
		if d.Next.Watermark == state.Watermark {
			break
		}
		state = d.Next
	}
	if want := []transcript.Sequence{4, 5, 6, 7}; !slices.Equal(got, want) {
		t.Errorf("delivered %v, want each of %v once, in order", got, want)
	}
}
