package sharing_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// TestPrefixThenPrepareModel checks Delta.Prefix on the model's random logs and queries:
// for every delta Prepare gives and a few cuts n, the prefix holds d's first n messages and
// the elisions below the first left out and the corrections at or below its Next's watermark,
// and a Prepare from the prefix's Next, over the same log and bound, gives exactly the rest:
// d's messages from n on, its elisions above them, and its other corrections.
// Prefix then Prepare therefore delivers every message of d once, in order.
func TestPrefixThenPrepareModel(t *testing.T) {
	ctx := context.Background()
	cut, kept, deferred := 0, 0, 0
	modelRun(t, modelCases(300), func(r *rand.Rand, seed uint64, i int) bool {
		c := modelGen(r, i%20 == 19)
		log := modelLog(t, c, seed, i)
		plan, err := sharing.Prepare(ctx, log, c.q)
		if err != nil || plan.Reinitialize != 0 {
			return true
		}
		d := plan.Delta
		for _, n := range []int{-1, 0, r.IntN(len(d.Messages) + 1), len(d.Messages) - 1, len(d.Messages), len(d.Messages) + 3} {
			fail := func(format string, args ...any) bool {
				t.Errorf("seed %d case %d, n %d of %d: %s\n%s", seed, i, n, len(d.Messages), fmt.Sprintf(format, args...), c)
				return false
			}
			p := d.Prefix(n, c.q.State)
			k := min(max(n, 0), len(d.Messages))
			if !slices.EqualFunc(p.Messages, d.Messages[:k], modelSameMessage) {
				return fail("prefix messages %v, want %v", seqsOf(p.Messages), seqsOf(d.Messages[:k]))
			}
			if k == len(d.Messages) {
				if !gocmp.Equal(p.Elided, d.Elided) || !modelSameState(p.Next, d.Next) ||
					!slices.EqualFunc(p.Corrections, d.Corrections, modelSameMessage) {
					return fail("a prefix of every message is not the delta: %+v", p)
				}
				continue
			}
			cut++
			if w := p.Next.Watermark; w >= d.Messages[k].Seq || w < c.q.State.Watermark || (k > 0 && w < d.Messages[k-1].Seq) {
				return fail("Next.Watermark %d, want one between the last message kept and the first left out", w)
			}
			committed := func(m transcript.Message) bool { return m.Seq <= p.Next.Watermark }
			later := func(m transcript.Message) bool { return !committed(m) }
			if want := slices.DeleteFunc(slices.Clone(d.Corrections), later); !slices.EqualFunc(p.Corrections, want, modelSameMessage) {
				return fail("prefix corrections %v, want those at or below its watermark %d: %v", seqsOf(p.Corrections), p.Next.Watermark, seqsOf(want))
			}
			if len(p.Corrections) > 0 {
				kept++
			}
			q := c.q
			q.State = p.Next
			rest, err := sharing.Prepare(ctx, log, q)
			if err != nil || rest.Reinitialize != 0 {
				return fail("Prepare from the prefix's Next: %+v, %v", rest, err)
			}
			if !slices.EqualFunc(rest.Delta.Messages, d.Messages[k:], modelSameMessage) {
				return fail("the rest holds %v, want %v", seqsOf(rest.Delta.Messages), seqsOf(d.Messages[k:]))
			}
			all := append(slices.Clone(p.Elided), rest.Delta.Elided...)
			if diff := gocmp.Diff(d.Elided, all); len(d.Elided)+len(all) > 0 && diff != "" {
				return fail("prefix then rest elide otherwise than the delta (-delta +both):\n%s", diff)
			}
			if want := slices.DeleteFunc(slices.Clone(d.Corrections), committed); !slices.EqualFunc(rest.Delta.Corrections, want, modelSameMessage) {
				return fail("the rest's corrections %v, want the delta's above the prefix's watermark: %v", seqsOf(rest.Delta.Corrections), seqsOf(want))
			}
			if len(rest.Delta.Corrections) > 0 {
				deferred++
			}
			if !modelSameState(rest.Delta.Next, d.Next) {
				return fail("the rest's Next %+v, want the delta's %+v", rest.Delta.Next, d.Next)
			}
		}
		return true
	})
	if cut < 200 || kept < 20 || deferred < 20 {
		t.Errorf("only %d deltas were cut, %d prefixes kept corrections, %d left some to the rest", cut, kept, deferred)
	}
}

// TestPrefixOwnsItsSlices checks that a prefix shares no array with the delta: writing into
// it leaves the delta as it was.
func TestPrefixOwnsItsSlices(t *testing.T) {
	c := transcript.Conversation{Desk: "eng"}
	d := sharing.Delta{
		Messages: []transcript.Message{{Seq: 5, Content: "a"}, {Seq: 7, Content: "b"}},
		Elided:   []transcript.Elision{{From: 6, Through: 6, Count: 1}},
		Next:     sharing.State{Conversation: c, Watermark: 9, Present: []transcript.Sequence{10}},
	}
	from := sharing.State{Conversation: c, Watermark: 4, Present: []transcript.Sequence{8, 10}}
	for n := range 3 {
		p := d.Prefix(n, from)
		for i := range p.Messages {
			p.Messages[i].Content = "changed"
		}
		for i := range p.Elided {
			p.Elided[i].Count = 99
		}
		for i := range p.Next.Present {
			p.Next.Present[i] = 99
		}
	}
	if d.Messages[0].Content != "a" || d.Messages[1].Content != "b" || d.Elided[0].Count != 1 || d.Next.Present[0] != 10 || from.Present[0] != 8 {
		t.Errorf("writing into prefixes changed the delta or the state: %+v, %+v", d, from)
	}
	if p := d.Prefix(1, from); !slices.Equal(p.Next.Present, []transcript.Sequence{8, 10}) || p.Next.Watermark != 6 {
		t.Errorf("Prefix(1).Next = %+v, want watermark 6 (the elided row) and present [8 10]", p.Next)
	}
	if p := d.Prefix(0, from); !slices.Equal(p.Next.Present, []transcript.Sequence{8, 10}) || p.Next.Watermark != 4 || len(p.Elided) != 0 {
		t.Errorf("Prefix(0) = %+v, want no elision and from's watermark 4 and present [8 10]", p)
	}
}
