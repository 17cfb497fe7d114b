package deskmcp

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
)

// randomDelta returns a delta over rows 1 to n of random kinds: messages, corrections,
// rows the viewer may not read (runs of them, with hidden rows between, one elision each)
// and blank rows.
func randomDelta(r *rand.Rand) sharing.Delta {
	d := sharing.Delta{Messages: []transcript.Message{}, Elided: []transcript.Elision{}}
	open := false // the last elision may grow: no message since
	n := transcript.Sequence(1 + r.IntN(16))
	for seq := transcript.Sequence(1); seq <= n; seq++ {
		switch k := r.IntN(10); {
		case k < 3:
			d.Messages = append(d.Messages, transcript.Message{Seq: seq, Author: transcript.Agent("a", ""), Content: "news"})
			open = false
		case k < 5: // a correction parts elisions, as a message does
			d.Corrections = append(d.Corrections, transcript.Message{Seq: seq, Corrects: 1 + seq/2, Author: transcript.Agent("a", ""), Content: "fixed"})
			open = false
		case k < 8 && open:
			e := &d.Elided[len(d.Elided)-1]
			e.Through, e.Count = seq, e.Count+1
		case k < 8:
			d.Elided = append(d.Elided, transcript.Elision{From: seq, Through: seq, Count: 1, Readers: []transcript.Author{transcript.Operator()}})
			open = true
		}
	}
	d.Next = sharing.State{Watermark: n}
	return d
}

// TestChunksFollowPrefix: the blocks a read keeps with its k oldest items, messages and
// corrections (the lead and k chunks, chunksAfter), hold exactly the elisions and
// corrections of the delta below its k-th item (Below, or Prefix of all), which is what
// the read's state commits: the text says what the result holds.
func TestChunksFollowPrefix(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 4))
	for i := range 2000 {
		d := randomDelta(r)
		blocks := render.Blocks(render.WithCorrections(d.Messages, d.Corrections), d.Elided...)
		lead, chunks := chunksAfter(blocks)
		items := render.WithCorrections(d.Messages, d.Corrections)
		if len(chunks) != len(items) {
			t.Fatalf("case %d: %d chunks for %d items", i, len(chunks), len(items))
		}
		for k := 0; k <= len(items); k++ {
			p := d.Prefix(len(d.Messages), sharing.State{})
			if k < len(items) {
				p = d.Below(items[k].Seq, sharing.State{})
			}
			kept := slices.Concat(append([][]render.Block{lead}, chunks[:k]...)...)
			var corrections []transcript.Sequence
			var elided []transcript.Elision
			for _, b := range kept {
				switch {
				case b.Elision != nil:
					elided = append(elided, *b.Elision)
				case b.Message.IsCorrection():
					corrections = append(corrections, b.Message.Seq)
				}
			}
			var want []transcript.Sequence
			for _, c := range p.Corrections {
				want = append(want, c.Seq)
			}
			if diff := cmp.Diff(want, corrections); diff != "" {
				t.Fatalf("case %d, %d kept: corrections (-prefix +blocks):\n%s\n%+v", i, k, diff, d)
			}
			if diff := cmp.Diff(p.Elided, elided, cmp.Comparer(func(a, b transcript.Elision) bool { return a.From == b.From && a.Through == b.Through })); diff != "" && len(p.Elided)+len(elided) > 0 {
				t.Fatalf("case %d, %d kept: elisions (-prefix +blocks):\n%s", i, k, diff)
			}
		}
	}
}
