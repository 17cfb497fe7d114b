package sharing_test

import (
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// TestDigestCorrectedNoLoop: once a state with a digest is told DigestCorrected, the
// state started over from the fresh view (at its head, with its digest) gives a delta: the
// correction lies at or below the new watermark, also when the fresh view's digest still
// stands for the corrected row's neighbours and another correction of a folded row sits
// just below the head.
func TestDigestCorrectedNoLoop(t *testing.T) {
	for _, redact := range []bool{false, true} {
		t.Run(fmt.Sprintf("redacted %v", redact), func(t *testing.T) {
			log, c, state := heldDigest(t, 60)
			correctRow(t, log, 1, redact)
			correctRow(t, log, 2, redact)
			if plan := prepareFor(t, log, c, state); plan.Reinitialize != sharing.DigestCorrected {
				t.Fatalf("first: %v, want %v", plan.Reinitialize, sharing.DigestCorrected)
			}
			// The service folds again after the correction (as serve does in the background).
			if _, _, err := digest.FoldBacklog(t.Context(), log, digest.Extractive{}, digest.Policy{InputLimit: 5000, Budget: 64 << 10}, c, 10); err != nil {
				t.Fatal(err)
			}
			fresh, err := transcript.Project(t.Context(), log, transcript.Query{Conversation: c, Viewer: digestAgent, Digest: true})
			if err != nil {
				t.Fatal(err)
			}
			restarted := sharing.Initialized(c, fresh.Head).For(digestAgent).WithDigest(fresh.Digest)
			plan := prepareFor(t, log, c, restarted)
			if plan.Reinitialize != 0 {
				t.Fatalf("the state started over from the fresh view (head %d, digest %d): %v again", fresh.Head, restarted.Digest, plan.Reinitialize)
			}
			if plan.Delta.Next.Digest != restarted.Digest {
				t.Errorf("Next.Digest %d, want %d", plan.Delta.Next.Digest, restarted.Digest)
			}
		})
	}
}

// TestDigestAsideCorrectionIndistinguishable: a correction of an aside (and of a reply
// to an aside) at or below the digest's through gives an outsider holding the digest exactly
// the plan it gets holding none (apart from Next.Digest), and so does a forged digest far
// above the watermark.
func TestDigestAsideCorrectionIndistinguishable(t *testing.T) {
	ctx := t.Context()
	log := memlog.New()
	bob := transcript.Author{Kind: transcript.KindPerson, ID: "bob"}
	add := func(m transcript.Message) transcript.Message { t.Helper(); return appendTo(t, log, m) }
	aside := add(transcript.Message{Author: digestAuthor, Content: "between us", Audience: []transcript.Author{bob}})
	reply := add(transcript.Message{Author: bob, Parent: aside.Seq, Content: "ok, between us"})
	if !reply.IsAside() {
		t.Fatalf("a reply to an aside is not an aside: %+v", reply)
	}
	for i := range 50 {
		add(transcript.Message{Author: digestAuthor, Content: fmt.Sprintf("root %d", i+1)})
	}
	c := transcript.Conversation{Desk: "eng"}
	if _, _, err := digest.FoldBacklog(ctx, log, digest.Extractive{}, digest.Policy{InputLimit: 5000, Budget: 64 << 10}, c, 10); err != nil {
		t.Fatal(err)
	}
	p, err := transcript.Project(ctx, log, transcript.Query{Conversation: c, Viewer: digestAgent, Digest: true})
	if err != nil || p.Digest == nil || p.Digest.Through <= reply.Seq {
		t.Fatalf("view: %+v, %v", p.Digest, err)
	}
	state := sharing.Initialized(c, p.Head).For(digestAgent).WithDigest(p.Digest)
	add(transcript.Message{Author: bob, Corrects: reply.Seq, Content: "edited"})
	add(transcript.Message{Author: digestAuthor, Corrects: aside.Seq, Redacted: true})
	add(transcript.Message{Author: transcript.Operator(), Corrects: reply.Seq, Redacted: true})
	for _, corr := range []transcript.Sequence{p.Head + 1, p.Head + 2, p.Head + 3} {
		pg, err := log.ReadBefore(ctx, corr+1, 1)
		if err != nil || len(pg.Messages) != 1 || !pg.Messages[0].IsCorrection() || !pg.Messages[0].IsAside() {
			t.Fatalf("correction %d: %+v, %v; want an aside correction", corr, pg.Messages, err)
		}
	}
	plain := prepareFor(t, log, c, state.WithDigest(nil))
	for _, d := range []transcript.Sequence{state.Digest, p.Head, 1 << 40} {
		s := state
		s.Digest = d
		got := prepareFor(t, log, c, s)
		got.Delta.Next.Digest = 0
		if !modelSamePlan(plain, got) {
			t.Errorf("digest %d: %+v; want the plan without a digest %+v", d, got, plain)
		}
	}
}
