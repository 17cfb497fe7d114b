package transcript_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/memlog"
)

// This file extends the projection model to desks with edits and redactions, written through
// memlog so that the log applies them: a view shows every row as the log now holds it, and
// its shape never depends on a correction.

// modelCorrected is a desk written through memlog: the log, every row as its Append returned
// it (before later corrections changed it), and the desk's roles for modelGenQuery.
type modelCorrected struct {
	log     *memlog.Log
	written []transcript.Message
	desk    *modelDesk // rows as the model says the log holds them
}

// modelGenCorrected appends n rows to a new memlog, each non-blank one holding leakToken of
// its Seq: roots, replies (to roots, to replies, to
// thread's root when thread is set), blank rows, asides (replies to one by the reply rule),
// and with chance corrP a correction: an edit by a row's author, or a redaction by its author
// or the operator, of a recent row or any, aside or not, root or reply, that is no correction,
// not blank and not redacted.
func modelGenCorrected(t *testing.T, r *rand.Rand, n int, thread transcript.Sequence, corrP, asideP float64) modelCorrected {
	t.Helper()
	ctx := context.Background()
	log := memlog.New()
	var written []transcript.Message
	var targets []int // the rows a correction may name: no correction, not blank, not redacted
	var roots, replies []transcript.Sequence
	for len(written) < n {
		seq := transcript.Sequence(len(written) + 1)
		var m transcript.Message
		if len(targets) > 0 && r.Float64() < corrP {
			k := r.IntN(len(targets))
			if r.IntN(2) == 0 {
				k = len(targets) - 1 - r.IntN(min(len(targets), 8))
			}
			target := written[targets[k]]
			m = transcript.Message{Corrects: target.Seq, Author: target.Author}
			switch r.IntN(4) {
			case 0, 1:
				m.Content = leakToken(seq)
			case 2:
				m.Redacted = true
			default:
				m.Redacted, m.Author = true, transcript.Operator()
			}
		} else {
			m = transcript.Message{Author: modelAuthors[r.IntN(len(modelAuthors))], Content: leakToken(seq)}
			switch k := r.IntN(10); {
			case len(roots) == 0 || k < 4:
			case thread < seq && !written[thread-1].IsCorrection() && k < 6:
				m.Parent = thread
			case len(replies) > 0 && k < 7:
				m.Parent = replies[r.IntN(len(replies))]
			default:
				m.Parent = roots[len(roots)-1-min(len(roots)-1, int(r.ExpFloat64()*3))]
			}
			if r.IntN(6) == 0 {
				m.Content = modelBlanks[r.IntN(len(modelBlanks))]
			}
			if m.Parent != 0 && written[m.Parent-1].IsAside() {
				parent := written[m.Parent-1]
				if !parent.ReadableBy(m.Author) {
					m.Author = parent.Author
				}
			} else if r.Float64() < asideP {
				m.Audience = modelGenAudience(r, m.Author)
			}
		}
		stored, err := log.Append(ctx, m)
		if err != nil {
			t.Fatalf("appending %+v: %v", m, err)
		}
		switch {
		case stored.IsCorrection() && stored.Redacted:
			targets = slices.DeleteFunc(targets, func(j int) bool { return written[j].Seq == stored.Corrects })
		case stored.IsCorrection():
		case !modelBlank(stored):
			targets = append(targets, len(written))
		}
		switch {
		case stored.IsCorrection():
		case stored.Parent == 0:
			roots = append(roots, stored.Seq)
		default:
			replies = append(replies, stored.Seq)
		}
		written = append(written, stored)
	}
	return modelCorrected{log: log, written: written, desk: &modelDesk{rows: modelApplied(written), roots: roots, replies: replies}}
}

// modelApplied returns written, every row as its append returned it, as the log holds them
// once it applied every correction in order: a target takes its edit's content, or is
// erased with every earlier correction of it, and its Revised is its newest correction.
func modelApplied(written []transcript.Message) []transcript.Message {
	out := slices.Clone(written)
	for _, c := range written {
		if !c.IsCorrection() {
			continue
		}
		for j := range out {
			switch m := &out[j]; {
			case m.Seq == c.Corrects:
				m.Content, m.Redacted, m.Revised = c.Content, c.Redacted, c.Seq
			case c.Redacted && m.Corrects == c.Corrects && m.Seq < c.Seq:
				m.Content, m.Redacted = "", true
			}
		}
	}
	return out
}

// modelUncorrected returns written, every row as its append returned it, with every
// correction turned into a blank root: the desk as it would be had no one corrected anything.
func modelUncorrected(written []transcript.Message) []transcript.Message {
	out := slices.Clone(written)
	for j := range out {
		if m := &out[j]; m.IsCorrection() {
			*m = transcript.Message{Seq: m.Seq, Author: m.Author, Audience: m.Audience}
		}
	}
	return out
}

// TestProjectModelCorrections checks Project against the model on desks with edits and
// redactions appended through memlog: the log holds what the model applies (content,
// Redacted, Revised, the erasure of earlier corrections), every view equals the model's for
// every viewer, channel and thread, bound, window, full and short pages — its rows with their
// current content, Revised and Redacted, no correction among its messages — and the same
// desk without its corrections (each a blank row, each target as written) gives views of the
// same shape: the same Seqs, elisions, Head, Partial and Scanned.
func TestProjectModelCorrections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	desks := proptest.Desks(400, 100)
	if testing.Short() {
		desks = 100
	}
	var reach modelReach
	revised, redacted := 0, 0
	for i := range desks {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 0xc0e))
		n := r.IntN(80)
		if r.IntN(25) == 0 {
			n = transcript.ScanLimit + r.IntN(1500)
		}
		thread := transcript.Sequence(1 + r.IntN(10))
		c := modelGenCorrected(t, r, n, thread, []float64{0.1, 0.3, 0.5}[r.IntN(3)], []float64{0, 0.2, 0.5}[r.IntN(3)])
		if diff := gocmp.Diff(c.desk.rows, c.log.Messages(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("seed %d: the log holds otherwise than the model applies (-model +memlog):\n%s", seed, diff)
		}
		plain, err := memlog.From(modelUncorrected(c.written))
		if err != nil {
			t.Fatalf("seed %d: memlog.From: %v", seed, err)
		}
		for range 6 {
			q := modelGenQuery(r, c.desk)
			if r.IntN(3) == 0 {
				q.Conversation.Thread = thread
			}
			want := modelCheckDesk(t, seed, c.desk, q)
			reach.note(want)
			for _, m := range want.Messages {
				switch {
				case m.IsCorrection():
					t.Fatalf("seed %d, query %+v: the model shows the correction %d", seed, q, m.Seq)
				case m.Redacted:
					redacted++
				case m.Revised != 0:
					revised++
				}
			}
			got, err := transcript.Project(ctx, c.log, q)
			if err != nil {
				t.Fatalf("seed %d, query %+v: Project: %v", seed, q, err)
			}
			base, err := transcript.Project(ctx, plain, q)
			if err != nil {
				t.Fatalf("seed %d, query %+v: Project without corrections: %v", seed, q, err)
			}
			if diff := gocmp.Diff(viewShape(base), viewShape(got), cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("seed %d, query %+v: corrections changed the view's shape (-without +with):\n%s", seed, q, diff)
			}
		}
		if t.Failed() {
			return
		}
	}
	reach.check(t, desks/20)
	if revised < desks/4 || redacted < desks/4 {
		t.Errorf("views showed %d edited and %d redacted rows, want %d of each", revised, redacted, desks/4)
	}
}

// viewShape is what a correction never changes in a projection.
func viewShape(p transcript.Projection) string {
	seqs := make([]string, len(p.Messages))
	for i, m := range p.Messages {
		seqs[i] = fmt.Sprint(m.Seq)
	}
	return fmt.Sprintf("messages %s\nelided %+v\nhead %d partial %v scanned %d", strings.Join(seqs, " "), p.Elided, p.Head, p.Partial, p.Scanned)
}
