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

// TestCorrectionsPartElisions: no elision of a delta spans one of its corrections, so a
// byte budget can cut between any two of them, each delta stays within it, Remaining says
// whether more is to come, and reading on delivers every correction once and every elided
// row once.
func TestCorrectionsPartElisions(t *testing.T) {
	ctx := context.Background()
	ana, bob, op := transcript.Person("ana", "Ana"), transcript.Person("bob", "Bob"), transcript.Operator()
	log := memlog.New()
	add := func(m transcript.Message) transcript.Message {
		t.Helper()
		stored, err := log.Append(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	var roots []transcript.Message
	for range 20 {
		roots = append(roots, add(transcript.Message{Author: ana, Content: "a root"}))
	}
	for _, r := range roots {
		add(transcript.Message{Author: op, Content: "an aside", Audience: []transcript.Author{ana}})
		add(transcript.Message{Author: ana, Content: strings.Repeat("x", 100), Corrects: r.Seq})
	}
	add(transcript.Message{Author: op, Content: "an aside", Audience: []transcript.Author{ana}})
	eng := transcript.Conversation{Desk: "eng"}
	state := sharing.Initialized(eng, roots[len(roots)-1].Seq)
	corrections, elided := map[transcript.Sequence]int{}, 0
	for range 50 {
		plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: eng, Current: eng, State: state, Viewer: bob, MaxBytes: 150})
		if err != nil || plan.Reinitialize != 0 {
			t.Fatalf("Prepare = %+v, %v", plan, err)
		}
		d := plan.Delta
		size := 0
		for _, c := range d.Corrections {
			size += len(c.Content)
			corrections[c.Seq]++
			for _, e := range d.Elided {
				if e.From < c.Seq && c.Seq < e.Through {
					t.Errorf("elision %d-%d spans correction %d", e.From, e.Through, c.Seq)
				}
			}
		}
		for _, e := range d.Elided {
			elided += e.Count
		}
		if size > 150 {
			t.Errorf("from watermark %d: %d bytes of corrections, over the budget of 150", state.Watermark, size)
		}
		if d.Next.Watermark == state.Watermark {
			if d.Remaining != 0 {
				t.Errorf("no progress, and Remaining %d", d.Remaining)
			}
			break
		}
		if d.Remaining == 0 && d.Next.Watermark < log.Head() {
			t.Errorf("from watermark %d to %d: Remaining 0 with rows still to deliver", state.Watermark, d.Next.Watermark)
		}
		state = d.Next
	}
	if len(corrections) != 20 || elided != 21 {
		t.Errorf("delivered %d corrections and %d elided rows, want 20 and 21", len(corrections), elided)
	}
	for seq, n := range corrections {
		if n != 1 {
			t.Errorf("correction %d delivered %d times", seq, n)
		}
	}
}
