package sharing_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// TestDeltaCarriesNoDigest: a delta is news and carries no digest, even of a log that holds
// one and after a fold; a reinitialization projects afresh and gets the digest it asks for.
func TestDeltaCarriesNoDigest(t *testing.T) {
	ctx := context.Background()
	log := memlog.New()
	channel := transcript.Conversation{Desk: "eng"}
	ana := transcript.Person("ana", "Ana")
	for i := range 40 {
		if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: fmt.Sprintf("folded word%03d", i+1)}); err != nil {
			t.Fatal(err)
		}
	}
	policy := digest.Policy{KeepLive: 10, FoldAfter: 10}
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, policy, channel); err != nil || !stored {
		t.Fatalf("Fold: %v, %v", stored, err)
	}
	proj, err := transcript.Project(ctx, log, transcript.Query{Conversation: channel, Window: 10, Digest: true})
	if err != nil || proj.Digest == nil || proj.Digest.Through != 30 {
		t.Fatalf("Project with its digest: %+v, %v; want the digest through 30", proj.Digest, err)
	}
	state := sharing.Initialized(channel, proj.Head)
	for i := range 30 {
		if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: fmt.Sprintf("new word%03d", i+41)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, policy, channel); err != nil || !stored {
		t.Fatalf("second Fold: %v, %v", stored, err)
	}
	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: channel, Current: channel, State: state})
	if err != nil || plan.Reinitialize != 0 || len(plan.Delta.Messages) != 30 {
		t.Fatalf("Prepare: %+v, %v; want the 30 new rows", plan, err)
	}
	data, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(data); strings.Contains(s, "digest") || strings.Contains(s, "folded word") {
		t.Errorf("the delta carries a digest: %s", s)
	}
	other := transcript.Conversation{Desk: "eng", Thread: 5}
	plan, err = sharing.Prepare(ctx, log, sharing.Query{Desired: other, Current: other, State: state})
	if err != nil || plan.Reinitialize != sharing.ConversationChanged {
		t.Fatalf("Prepare in another conversation: %+v, %v; want a reinitialization", plan, err)
	}
	fresh, err := transcript.Project(ctx, log, transcript.Query{Conversation: channel, Window: 10, Digest: true})
	if err != nil || fresh.Digest == nil || fresh.Digest.Generation != 2 || !strings.Contains(fresh.Digest.Text, "new word041") {
		t.Errorf("the reinitialization's fresh view: digest %+v, %v; want generation 2, holding the rows folded since", fresh.Digest, err)
	}
}

// secretWord is the content of row 1 of heldDigest's desk, folded into its digest.
const secretWord = "OKAPI-SECRET-WORD"

var (
	digestAuthor = transcript.Author{Kind: transcript.KindPerson, ID: "ana"}
	digestAgent  = transcript.Author{Kind: transcript.KindAgent, ID: "bot"}
)

// heldDigest returns a desk of rows roots by digestAuthor, row 1 holding secretWord, whose
// channel digest holds it, and the state of digestAgent given the channel's view with that
// digest (a first read).
func heldDigest(t *testing.T, rows int) (*memlog.Log, transcript.Conversation, sharing.State) {
	t.Helper()
	ctx := t.Context()
	log := memlog.New()
	for i := range rows {
		content := fmt.Sprintf("root %d", i+1)
		if i == 0 {
			content = secretWord
		}
		appendTo(t, log, transcript.Message{Author: digestAuthor, Content: content})
	}
	c := transcript.Conversation{Desk: "eng"}
	if _, _, err := digest.FoldBacklog(ctx, log, digest.Extractive{}, digest.Policy{InputLimit: 5000, Budget: 64 << 10}, c, 10); err != nil {
		t.Fatal(err)
	}
	p, err := transcript.Project(ctx, log, transcript.Query{Conversation: c, Viewer: digestAgent, Digest: true})
	if err != nil || p.Digest == nil || !strings.Contains(p.Digest.Text, secretWord) {
		t.Fatalf("the first read's digest: %+v, %v; want row 1's words in it", p.Digest, err)
	}
	return log, c, sharing.Initialized(c, p.Head).For(digestAgent).WithDigest(p.Digest)
}

// appendTo appends m to log and returns the row stored.
func appendTo(t *testing.T, log *memlog.Log, m transcript.Message) transcript.Message {
	t.Helper()
	stored, err := log.Append(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

// correctRow appends digestAuthor's edit (its content "edited") or redaction of row target.
func correctRow(t *testing.T, log *memlog.Log, target transcript.Sequence, redact bool) transcript.Message {
	t.Helper()
	m := transcript.Message{Author: digestAuthor, Corrects: target, Content: "edited"}
	if redact {
		m.Content, m.Redacted = "", true
	}
	return appendTo(t, log, m)
}

func prepareFor(t *testing.T, log transcript.Log, c transcript.Conversation, s sharing.State) sharing.Plan {
	t.Helper()
	plan, err := sharing.Prepare(t.Context(), log, sharing.Query{Desired: c, Current: c, State: s, Viewer: digestAgent, ExceptAuthor: digestAgent})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// TestDigestCorrected: an agent given the channel's digest on its first read, whose row 1 is
// then edited or redacted, is told to start over (DigestCorrected) on its next delta,
// also when row 1 lies beyond the delta's scan; the fresh view's digest no longer holds
// row 1's words.
func TestDigestCorrected(t *testing.T) {
	for _, rows := range []int{60, transcript.ScanLimit + 100} {
		for _, redact := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d rows, redacted %v", rows, redact), func(t *testing.T) {
				log, c, state := heldDigest(t, rows)
				correctRow(t, log, 1, redact)
				if plan := prepareFor(t, log, c, state); plan.Reinitialize != sharing.DigestCorrected {
					t.Fatalf("the next delta of a state whose digest holds row 1, corrected since: reinitialize %v, %d corrections; want %v",
						plan.Reinitialize, len(plan.Delta.Corrections), sharing.DigestCorrected)
				}
				fresh, err := transcript.Project(t.Context(), log, transcript.Query{Conversation: c, Viewer: digestAgent, Digest: true})
				if err != nil {
					t.Fatal(err)
				}
				if fresh.Digest != nil && strings.Contains(fresh.Digest.Text, secretWord) {
					t.Errorf("the reinitialization's digest still holds row 1's words: %+v", fresh.Digest)
				}
			})
		}
	}
}

// TestDigestCorrectedAcrossDeltas: a delta's Next keeps the state's digest, so that a
// correction of a folded row a later delta reads reinitializes all the same, also one the
// state's present set holds (the agent wrote or had it already: its copy of the digest
// keeps the words all the same); a correction of a row the digest does not stand for is a
// plain delta.
func TestDigestCorrectedAcrossDeltas(t *testing.T) {
	log, c, state := heldDigest(t, 60)
	live := correctRow(t, log, 60, false) // the newest row, in the window: never folded
	plan := prepareFor(t, log, c, state)
	if plan.Reinitialize != 0 || len(plan.Delta.Corrections) != 1 || plan.Delta.Corrections[0].Seq != live.Seq {
		t.Fatalf("a correction of a row above the digest: %+v; want a plain delta carrying it", plan)
	}
	next := plan.Delta.Next
	if next.Digest != state.Digest {
		t.Fatalf("the delta's Next holds digest %d, want the state's %d", next.Digest, state.Digest)
	}
	if part := plan.Delta.Below(live.Seq, state); part.Next.Digest != state.Digest {
		t.Errorf("a part of the delta (Below) commits digest %d, want the state's %d", part.Next.Digest, state.Digest)
	}
	own := appendTo(t, log, transcript.Message{Author: transcript.Operator(), Corrects: 2, Redacted: true})
	if err := next.NotePresent(own.Seq); err != nil {
		t.Fatal(err)
	}
	if plan := prepareFor(t, log, c, next); plan.Reinitialize != sharing.DigestCorrected {
		t.Errorf("a redaction of a folded row after a delta: %+v; want %v", plan, sharing.DigestCorrected)
	}
}

// TestNoDigestPlainDelta: a state without a digest is never reinitialized for a correction:
// its delta carries the correction of a row of its scan, as it always has.
func TestNoDigestPlainDelta(t *testing.T) {
	for _, redact := range []bool{false, true} {
		log, c, state := heldDigest(t, 60)
		state.Digest = 0
		corr := correctRow(t, log, 1, redact)
		plan := prepareFor(t, log, c, state)
		if plan.Reinitialize != 0 || len(plan.Delta.Corrections) != 1 || plan.Delta.Corrections[0].Seq != corr.Seq || plan.Delta.Corrections[0].Corrects != 1 {
			t.Errorf("redacted %v: the delta of a state without a digest: %+v; want a plain delta carrying the correction of row 1", redact, plan)
		}
		if plan.Delta.Next.Digest != 0 {
			t.Errorf("redacted %v: Next holds digest %d, want none", redact, plan.Delta.Next.Digest)
		}
	}
}

// TestDigestCorrectedOnlyFolded: a correction of a row no digest folds leaves a state with a
// digest a plain delta: an aside below the digest's through (a reader outside it learns
// nothing of its correction), and a thread's root, which its thread's digest never folds.
func TestDigestCorrectedOnlyFolded(t *testing.T) {
	ctx := t.Context()
	log := memlog.New()
	bob := transcript.Author{Kind: transcript.KindPerson, ID: "bob"}
	add := func(m transcript.Message) transcript.Message { t.Helper(); return appendTo(t, log, m) }
	root := add(transcript.Message{Author: digestAuthor, Content: "the thread's root"})
	aside := add(transcript.Message{Author: digestAuthor, Parent: root.Seq, Content: "between us", Audience: []transcript.Author{bob}})
	for i := range 40 {
		add(transcript.Message{Author: digestAuthor, Parent: root.Seq, Content: fmt.Sprintf("reply %d", i+1)})
	}
	thread := transcript.Conversation{Desk: "eng", Thread: root.Seq}
	if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{KeepLive: 10, FoldAfter: 10}, thread); err != nil || !stored {
		t.Fatalf("Fold: %v, %v", stored, err)
	}
	p, err := transcript.Project(ctx, log, transcript.Query{Conversation: thread, Window: 10, Viewer: digestAgent, Digest: true})
	if err != nil || p.Digest == nil || p.Digest.Through <= aside.Seq {
		t.Fatalf("the thread's view: digest %+v, %v; want one through the aside and beyond", p.Digest, err)
	}
	state := sharing.Initialized(thread, p.Head).For(digestAgent).WithDigest(p.Digest)
	add(transcript.Message{Author: digestAuthor, Corrects: aside.Seq, Redacted: true})
	add(transcript.Message{Author: digestAuthor, Corrects: root.Seq, Content: "the root, edited"})
	plan := prepareFor(t, log, thread, state)
	if plan.Reinitialize != 0 {
		t.Fatalf("corrections of an aside and of the thread's root: reinitialize %v; want a plain delta", plan.Reinitialize)
	}
	if len(plan.Delta.Corrections) != 1 || plan.Delta.Corrections[0].Corrects != root.Seq {
		t.Errorf("the delta's corrections: %+v; want the root's edit alone", plan.Delta.Corrections)
	}
	folded := add(transcript.Message{Author: digestAuthor, Corrects: aside.Seq + 1, Content: "reply 1, edited"})
	if plan := prepareFor(t, log, thread, plan.Delta.Next); plan.Reinitialize != sharing.DigestCorrected {
		t.Errorf("an edit (#%d) of the thread's first folded reply: %+v; want %v", folded.Seq, plan, sharing.DigestCorrected)
	}
}

// TestPrepareModelDigest checks Prepare from a state with a digest against Prepare from the
// same state without one, on the model's random logs and queries: the same error or
// reinitialization; else DigestCorrected exactly when a row of (M, B) is a correction, of
// a row every participant may read (it has no audience), at or below the digest's through
// (in a thread, above its root); else the same delta, whose Next keeps the digest.
func TestPrepareModelDigest(t *testing.T) {
	ctx := context.Background()
	outcomes := make(map[string]int)
	modelRun(t, modelCases(200), func(r *rand.Rand, seed uint64, i int) bool {
		c := modelGen(r, i%20 == 19)
		log := modelLog(t, c, seed, i)
		plain, plainErr := sharing.Prepare(ctx, log, c.q)
		q := c.q
		q.State.Digest = transcript.Sequence(r.IntN(int(q.State.Watermark)+2)) + 1
		plan, err := sharing.Prepare(ctx, log, q)
		M, B, d, thread := q.State.Watermark, q.Before, q.State.Digest, q.Desired.Thread
		corrected := false
		for _, m := range c.rows {
			if m.Seq > M && (B == 0 || m.Seq < B) && m.Corrects != 0 && len(m.Audience) == 0 && m.Corrects <= d && (thread == 0 || m.Corrects > thread) {
				corrected = true
			}
		}
		var want sharing.Plan
		switch {
		case plainErr != nil || plain.Reinitialize != 0:
			want = plain
			outcomes["no delta without the digest"]++
		case corrected:
			want = sharing.Plan{Reinitialize: sharing.DigestCorrected}
			outcomes["digest_corrected"]++
		default:
			want = plain
			want.Delta.Next.Digest = d
			outcomes["a delta that keeps the digest"]++
			if len(plain.Delta.Corrections) > 0 {
				outcomes["a delta with corrections that keeps the digest"]++
			}
		}
		sameErr := (err == nil) == (plainErr == nil)
		for _, kind := range []error{sharing.ErrPresentSetTooLarge, sharing.ErrInvalidState, sharing.ErrWatermarkRegression} {
			sameErr = sameErr && errors.Is(err, kind) == errors.Is(plainErr, kind)
		}
		if !sameErr || !modelSamePlan(want, plan) || plan.Delta.Next.Digest != want.Delta.Next.Digest {
			t.Errorf("seed %d case %d, digest %d: Prepare = %+v, %v; want %+v, %v (-want +got):\n%s\n%s", seed, i, d, plan, err, want, plainErr,
				gocmp.Diff(want, plan, modelOpts), c)
			return false
		}
		return true
	})
	if *modelSeedFlag != 0 || !modelFull() {
		return
	}
	for _, outcome := range []string{"no delta without the digest", "digest_corrected", "a delta that keeps the digest", "a delta with corrections that keeps the digest"} {
		if outcomes[outcome] < 5 {
			t.Errorf("outcome %q generated %d times, want at least 5", outcome, outcomes[outcome])
		}
	}
	t.Logf("outcomes: %v", outcomes)
}
