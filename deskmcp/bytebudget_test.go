package deskmcp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// budgetedSession returns a new store and a session of agent A with a service over it whose
// answers are bounded by maxAnswerBytes, A's first read of the empty desk done.
func budgetedSession(t *testing.T, maxAnswerBytes int) (store, *agent) {
	t.Helper()
	st, _ := sqliteStore(t)
	svc, err := deskmcp.New(st, st, deskmcp.Options{MaxAnswerBytes: maxAnswerBytes})
	if err != nil {
		t.Fatal(err)
	}
	a := connect(t, svc, agentA)
	a.Read(deskmcp.ReadDeskArgs{}) // the first read: the empty desk's view
	return st, a
}

// TestByteBudgetReadsInParts: with MaxAnswerBytes, read_desk delivers its oldest new
// messages within it, says how many remain, and the reads after it deliver the rest,
// every message once, in order; view drops its oldest messages past it, never a thread's
// root, and says how many.
func TestByteBudgetReadsInParts(t *testing.T) {
	st, a := budgetedSession(t, 250)
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

// TestByteBudgetLeavesOwnMessagesOut: the participant's own messages, never news to it,
// take none of read_desk's byte budget and are not counted as remaining: under a budget of
// 1000 bytes, after A's two messages of 900 bytes, its next read delivers Ana's small one
// and nothing remains, whether A posted through the tools or another client.
func TestByteBudgetLeavesOwnMessagesOut(t *testing.T) {
	big := func(c string) string { return strings.Repeat(c, 900) }
	for _, through := range []string{"post_message", "another client"} {
		t.Run(through, func(t *testing.T) {
			st, a := budgetedSession(t, 1000)
			for _, c := range []string{"a", "b"} {
				if through == "post_message" {
					a.Post(deskmcp.PostMessageArgs{Content: big(c)})
				} else {
					appendAs(t, st, transcript.Message{Author: agentA, Content: big(c)})
				}
			}
			news := appendAs(t, st, transcript.Message{Author: ana, Content: "small news"})
			r, text := a.Read(deskmcp.ReadDeskArgs{})
			if got := seqs(r.Messages); !slices.Equal(got, []transcript.Sequence{news.Seq}) || r.Remaining != 0 {
				t.Fatalf("read_desk delivered %v, remaining %d; want [%d], remaining 0: %.300s", got, r.Remaining, news.Seq, text)
			}
			if r.Head != news.Seq {
				t.Errorf("read_desk's head %d, want %d: the read accepts every row up to Ana's", r.Head, news.Seq)
			}
			if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Remaining != 0 {
				t.Errorf("the read after it: %+v, want nothing new", r)
			}
		})
	}
}
