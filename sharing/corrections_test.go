package sharing_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// modelApply applies c, a delta's correction, to the rows an agent holds, as
// Delta.Corrections tells the caller to: the row c corrects takes c's content, Redacted and
// Seq as its Revised, unless it shows a newer correction already.
func modelApply(held []transcript.Message, c transcript.Message) {
	for j := range held {
		if m := &held[j]; m.Seq == c.Corrects && c.Seq > m.Revised {
			m.Content, m.Redacted, m.Revised = c.Content, c.Redacted, c.Seq
		}
	}
}

// TestPrepareModelCorrectionsHeld plays the protocol on a desk that grows: each turn is
// prepared over the log as it stood at the turn — its rows up to the turn's trigger, their
// corrections applied — so that edits and redactions arrive after the rows they correct were
// shown. What the agent holds — the first projection's messages, each delta's corrections
// applied to them and its messages appended, the triggers it answered — is exactly one
// projection at the last bound: the same rows, with the same content, Redacted and Revised.
func TestPrepareModelCorrectionsHeld(t *testing.T) {
	ctx := context.Background()
	played, applied := 0, 0
	modelRun(t, modelCases(200), func(r *rand.Rand, seed uint64, i int) bool {
		written := modelWritten(r, 5+r.IntN(300))
		// The log when the row b was just appended (every row when b is 0).
		logAt := func(b transcript.Sequence) (*memlog.Log, []transcript.Message) {
			rows := written
			if b != 0 {
				j, _ := modelFind(written, b+1)
				rows = written[:j]
			}
			rows = modelApplied(rows)
			log, err := memlog.From(rows)
			if err != nil {
				t.Fatalf("seed %d case %d: memlog.From: %v", seed, i, err)
			}
			return log, rows
		}
		// Rising bounds, each a row of the log (the turn's trigger); the last may be 0.
		bounds := make([]transcript.Sequence, 2+r.IntN(5))
		for j := range bounds {
			bounds[j] = written[r.IntN(len(written))].Seq
		}
		slices.Sort(bounds)
		bounds = slices.Compact(bounds)
		if len(bounds) < 2 || r.IntN(3) == 0 {
			bounds = append(bounds, 0)
		}
		c := transcript.Conversation{Desk: "eng"}
		if r.IntN(2) == 0 {
			c.Thread = modelThread(r, modelApplied(written), 0, 0)
		}
		viewer := modelViewers[r.IntN(len(modelViewers))]
		describe := func() string {
			return fmt.Sprintf("conversation %+v bounds %v viewer %v\n%s", c, bounds, viewer, modelCase{rows: written})
		}
		project := func(b transcript.Sequence) transcript.Projection {
			log, _ := logAt(b)
			proj, err := transcript.Project(ctx, log, transcript.Query{Conversation: c, Before: b, Window: 1_000_000, Viewer: viewer})
			if err != nil {
				t.Fatalf("seed %d case %d: Project(before %d): %v\n%s", seed, i, b, err, describe())
			}
			return proj
		}
		first, last := project(bounds[0]), project(bounds[len(bounds)-1])
		if first.Partial || last.Partial {
			return true
		}
		held := slices.Clone(first.Messages)
		state := sharing.Initialized(c, first.Head)
		for k, b := range bounds[1:] {
			log, rows := logAt(b)
			plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: c, Current: c, State: state, Before: b, Viewer: viewer})
			if err != nil || plan.Reinitialize != 0 {
				return true // the deltas themselves are TestPrepareModelProjectionThenDeltas's
			}
			for _, corr := range plan.Delta.Corrections {
				if slices.ContainsFunc(held, func(m transcript.Message) bool { return m.Seq == corr.Corrects }) {
					applied++
				}
				modelApply(held, corr)
			}
			held = append(held, plan.Delta.Messages...)
			state = plan.Delta.Next
			// The trigger: the agent answered it, so it saw it, as the log held it then.
			if b == 0 {
				continue
			}
			trigger := rows[len(rows)-1]
			switch {
			case trigger.Corrects != 0:
				modelApply(held, trigger)
			case k < len(bounds)-2 && slices.ContainsFunc(last.Messages, func(m transcript.Message) bool { return m.Seq == trigger.Seq }):
				held = append(held, trigger)
			}
		}
		slices.SortStableFunc(held, func(a, b transcript.Message) int { return cmp.Compare(a.Seq, b.Seq) })
		if !slices.EqualFunc(last.Messages, held, modelSameMessage) {
			t.Errorf("seed %d case %d: what the agent holds is not one projection at the last bound (-projection +held):\n%s\n%s",
				seed, i, gocmp.Diff(last.Messages, held, modelOpts), describe())
			return false
		}
		played++
		return true
	})
	if played < 100 || (applied < 50 && modelFull()) {
		t.Errorf("only %d protocols played, %d corrections applied to a row held", played, applied)
	}
	t.Logf("%d protocols played, %d corrections applied to a row held", played, applied)
}

// TestPrepareCorrectionsCostNothingElsewhere checks that corrections cost a delta nothing
// when its range holds none: over the model's random logs and queries, a Prepare whose
// (M, B) holds no correction makes the same reads, and gives the same plan, as over the same
// log with every correction a blank root (how a walk saw a desk before corrections).
func TestPrepareCorrectionsCostNothingElsewhere(t *testing.T) {
	ctx := context.Background()
	compared := 0
	modelRun(t, modelCases(300), func(r *rand.Rand, seed uint64, i int) bool {
		c := modelGen(r, i%20 == 19)
		M, B := c.q.State.Watermark, c.q.Before
		blanked := slices.Clone(c.rows)
		corrected := false
		for j := range blanked {
			m := &blanked[j]
			if m.Corrects == 0 {
				continue
			}
			corrected = corrected || (m.Seq > M && (B == 0 || m.Seq < B))
			*m = transcript.Message{Seq: m.Seq, Author: m.Author}
		}
		if corrected || len(blanked) == 0 {
			return true
		}
		var reads [2][]modelRead
		var plans [2]sharing.Plan
		for k, rows := range [][]transcript.Message{c.rows, blanked} {
			log, err := memlog.From(rows)
			if err != nil {
				t.Fatalf("seed %d case %d: memlog.From: %v", seed, i, err)
			}
			rec := &modelRecorder{log: log}
			plans[k], _ = sharing.Prepare(ctx, rec, c.q)
			reads[k] = rec.reads
		}
		if !slices.Equal(reads[0], reads[1]) || len(plans[0].Delta.Corrections) != 0 ||
			!slices.Equal(seqsOfPlan(plans[0]), seqsOfPlan(plans[1])) {
			t.Errorf("seed %d case %d: with corrections outside (M, B), reads %v and plan %v; with blank rows instead, reads %v and plan %v\n%s",
				seed, i, reads[0], seqsOfPlan(plans[0]), reads[1], seqsOfPlan(plans[1]), c)
			return false
		}
		compared++
		return true
	})
	if compared < 200 {
		t.Errorf("only %d cases compared", compared)
	}
}

// seqsOfPlan returns the Seqs of plan's messages, and its reason to reinitialize as a last
// entry.
func seqsOfPlan(plan sharing.Plan) []transcript.Sequence {
	return append(seqsOf(plan.Delta.Messages), transcript.Sequence(plan.Reinitialize))
}
