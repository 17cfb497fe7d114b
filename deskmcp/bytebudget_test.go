package deskmcp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// TestByteBudgetReadsInParts: with MaxAnswerBytes, read_desk delivers its oldest new
// messages within it, says how many remain, and the reads after it deliver the rest,
// every message once, in order; view drops its oldest messages past it, never a thread's
// root, and says how many.
func TestByteBudgetReadsInParts(t *testing.T) {
	st, _ := sqliteStore(t)
	svc, err := deskmcp.New(st, st, deskmcp.Options{MaxAnswerBytes: 250})
	if err != nil {
		t.Fatal(err)
	}
	a := connect(t, svc, agentA)
	a.Read(deskmcp.ReadDeskArgs{}) // the first read: the empty desk's view
	row := func(i int) string { return fmt.Sprintf("row %03d ", i) + strings.Repeat("x", 92) }
	var want []transcript.Sequence
	for i := range 10 {
		want = append(want, appendAs(t, st, transcript.Message{Author: ana, Content: row(i)}).Seq)
	}
	var got []transcript.Sequence
	for reads := 0; len(got) < len(want) && reads < 20; reads++ {
		r, text := a.Read(deskmcp.ReadDeskArgs{})
		if len(r.Messages) == 0 || len(r.Messages) > 2 {
			t.Fatalf("read %d delivered %d messages under a budget of two: %s", reads, len(r.Messages), text)
		}
		got = append(got, seqs(r.Messages)...)
		if r.Remaining != len(want)-len(got) {
			t.Errorf("read %d says %d remaining, want %d", reads, r.Remaining, len(want)-len(got))
		}
		if r.Remaining > 0 && !strings.Contains(text, "byte budget") {
			t.Errorf("read %d leaves %d messages and its text does not say so: %.200s", reads, r.Remaining, text)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("the reads delivered %v, want every message once: %v", got, want)
	}
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Remaining != 0 {
		t.Errorf("the read after the last part: %+v, want nothing new", r)
	}

	root := want[0]
	var replies []transcript.Sequence
	for i := range 5 {
		replies = append(replies, appendAs(t, st, transcript.Message{Author: ana, Parent: root, Content: row(i)}).Seq)
	}
	var p transcript.Projection
	text, err := a.Call("view", deskmcp.ViewArgs{Thread: root}, &p)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := seqs(p.Messages), []transcript.Sequence{root, replies[4]}; !slices.Equal(got, want) || p.Dropped != 4 {
		t.Errorf("thread view: %v, dropped %d; want %v (the root kept), dropped 4", got, p.Dropped, want)
	}
	if !strings.Contains(text, "The oldest 4 messages did not fit in the answer's byte budget") {
		t.Errorf("the view's text does not say what it dropped: %.300s", text)
	}
}
