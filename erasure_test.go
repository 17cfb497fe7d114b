package transcript_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/sharing"
)

// FuzzCorrections checks the erasure property on random desks written through memlog, every
// row's content a token of its own (leakToken): after a redaction, no projection and no
// delta — any bound, viewer and conversation, cut by a byte budget or not —, no search for
// the erased words, and no rendering
// of them in any of package render's forms holds the content the redaction erased (the
// target's, as written or edited, and that of its earlier edits); and no content of an aside,
// its corrections included, reaches a viewer who may not read it, through a delta's
// corrections, a view or a search for its words. Its seeds are 8 desks, 2 under the race
// detector (proptest.Desks: a desk's checks run on one goroutine).
func FuzzCorrections(f *testing.F) {
	seeds := []uint64{1, 2, 3, 4, 5, 6, 0x5eed, 0xdecaf}
	for _, seed := range seeds[:proptest.Desks(len(seeds), 2)] {
		f.Add(seed, uint16(30+seed*17), uint8(40), uint8(60))
	}
	f.Fuzz(func(t *testing.T, seed uint64, size uint16, corrections, asides uint8) {
		r := rand.New(rand.NewPCG(seed, 0xe7a5e))
		thread := transcript.Sequence(1 + r.IntN(8))
		c := modelGenCorrected(t, r, int(size%240), thread, float64(corrections%101)/100*0.6, float64(asides%101)/100)
		erased := erasedTokens(c.written)
		ctx := context.Background()
		head := c.log.Head()
		conversations := []transcript.Conversation{{Desk: "eng"}, {Desk: "eng", Thread: thread}}
		for _, root := range c.desk.roots {
			if len(conversations) < 4 && r.IntN(4) == 0 {
				conversations = append(conversations, transcript.Conversation{Desk: "eng", Thread: root})
			}
		}
		for _, viewer := range modelViewers {
			check := func(what string, outputs map[string][]byte) {
				t.Helper()
				erasureCheck(t, c.written, erased, viewer, what, outputs)
			}
			for _, m := range searchedRows(r, c.written, erased) {
				for _, thread := range []transcript.Sequence{0, thread} {
					q := transcript.SearchQuery{Text: leakToken(m.Seq), Viewer: viewer, Thread: thread}
					res, err := c.log.Search(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf("search %+v", q), leakOutputs(t, viewer, res, res.Messages, nil))
				}
			}
			for _, conv := range conversations {
				for _, before := range []transcript.Sequence{0, 1 + transcript.Sequence(r.Uint64N(uint64(head)+1))} {
					q := transcript.Query{Conversation: conv, Before: before, Viewer: viewer, Window: []int{1, 3, 30, 1000}[r.IntN(4)]}
					p, err := transcript.Project(ctx, c.log, q)
					if err != nil {
						t.Fatal(err)
					}
					check(fmt.Sprintf("projection %+v", q), leakOutputs(t, viewer, p, p.Messages, p.Elided))
					cut := p.WithinBytes(conv.Thread, 1+r.IntN(64))
					check(fmt.Sprintf("projection %+v within a budget", q), leakOutputs(t, viewer, cut, cut.Messages, cut.Elided))
					for _, watermark := range []transcript.Sequence{0, before / 2, before - min(before, 3)} {
						state := sharing.Initialized(conv, watermark)
						plan, err := sharing.Prepare(ctx, c.log, sharing.Query{Desired: conv, Current: conv, State: state, Before: before, Viewer: viewer})
						if err != nil {
							t.Fatal(err)
						}
						d := plan.Delta
						what := fmt.Sprintf("delta of %+v from %d before %d", conv, watermark, before)
						check(what, leakOutputs(t, viewer, plan, d.Messages, d.Elided))
						check(what+", its corrections", leakOutputs(t, viewer, d.Corrections, d.Corrections, nil))
						d = d.WithinBytes(1+r.IntN(64), state)
						check(what+" within a budget", leakOutputs(t, viewer, d, d.Messages, d.Elided))
					}
				}
			}
		}
	})
}

// searchedRows returns the rows of written whose tokens the erasure and leak checks
// search for: every erased row, and a few others drawn at random.
func searchedRows(r *rand.Rand, written []transcript.Message, erased map[transcript.Sequence]bool) []transcript.Message {
	var rows []transcript.Message
	for _, m := range written {
		if m.Content != "" && (erased[m.Seq] || r.IntN(16) == 0) {
			rows = append(rows, m)
		}
	}
	return rows
}

// erasedTokens returns the tokens of the content the redactions of written erased: for each
// redaction, its target's and that of every earlier correction of the target.
func erasedTokens(written []transcript.Message) map[transcript.Sequence]bool {
	erased := make(map[transcript.Sequence]bool)
	for _, c := range written {
		if !c.IsCorrection() || !c.Redacted {
			continue
		}
		erased[c.Corrects] = true
		for _, m := range written {
			if m.Corrects == c.Corrects && m.Seq < c.Seq {
				erased[m.Seq] = true
			}
		}
	}
	return erased
}

// erasureCheck reports every token in outputs of a row of written whose content was erased,
// or that viewer may not read.
func erasureCheck(t *testing.T, written []transcript.Message, erased map[transcript.Sequence]bool, viewer transcript.Author, what string, outputs map[string][]byte) {
	t.Helper()
	for _, m := range written {
		if m.Content == "" || (!erased[m.Seq] && modelReadable(m, viewer)) {
			continue
		}
		token := []byte(leakToken(m.Seq))
		for format, data := range outputs {
			switch {
			case !bytes.Contains(data, token):
			case erased[m.Seq]:
				t.Errorf("%s for %v, %s: holds the content of row %d, which a redaction erased", what, viewer, format, m.Seq)
			default:
				t.Errorf("%s for %v, %s: holds the content of row %d, which the viewer may not read", what, viewer, format, m.Seq)
			}
		}
	}
}
