package digest_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
)

func TestExtractiveOutline(t *testing.T) {
	ctx := context.Background()
	prior := &transcript.Digest{Text: "#1 Ana (person:ana): the deploy failed"}
	r := digest.Request{Prior: prior, Budget: 4000, Messages: []transcript.Message{
		{Seq: 7, Author: ana, Content: "  retry with a smaller batch\nsecond line  "},
		{Seq: 9, Parent: 7, Author: bo, Content: "done"},
	}}
	got, err := digest.Extractive{}.Digest(ctx, r)
	want := "#1 Ana (person:ana): the deploy failed\n" +
		"#7 Ana (person:ana): retry with a smaller batch\n" +
		"#9 Bo (agent:bo) ↳ #7: done"
	if err != nil || got != want {
		t.Errorf("Digest = %q, %v; want %q", got, err, want)
	}
	r.Budget = utf8.RuneCountInString(want) - 1 // the prior's line no longer fits
	got, _ = digest.Extractive{}.Digest(ctx, r)
	if want := "…\n#7 Ana (person:ana): retry with a smaller batch\n#9 Bo (agent:bo) ↳ #7: done"; got != want {
		t.Errorf("one character short: %q, want %q", got, want)
	}
	r.Prior = &transcript.Digest{Text: got} // a prior that lost lines keeps one "…"
	r.Budget = 4000
	if got, _ = (digest.Extractive{}).Digest(ctx, r); strings.Count(got, "…") != 0 {
		t.Errorf("a prior's omitted line was kept: %q", got)
	}
	if (digest.Extractive{}).Name() != "extractive" {
		t.Errorf("Name = %q", digest.Extractive{}.Name())
	}
}

// TestExtractiveBudget: whatever the messages and the budget, the outline holds at most the
// budget's characters, is the same on every call, is not blank, and ends with the newest
// message's line when that fits.
func TestExtractiveBudget(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(3, 7))
	words := []string{"deploy", "é", "日本語", "\n", " ", "a-very-long-word-that-goes-on-and-on", "<tag>", "\t"}
	for i := range 2000 {
		req := digest.Request{Budget: 1 + r.IntN(300)}
		if r.IntN(2) == 0 {
			req.Prior = &transcript.Digest{Text: strings.Repeat("#1 Ana (person:ana): earlier\n", r.IntN(20))}
		}
		for k := range 1 + r.IntN(8) {
			var b strings.Builder
			for range r.IntN(80) {
				b.WriteString(words[r.IntN(len(words))])
			}
			b.WriteString("x") // never blank
			req.Messages = append(req.Messages, transcript.Message{Seq: transcript.Sequence(100 + k), Author: ana, Content: b.String()})
		}
		got, err := digest.Extractive{}.Digest(ctx, req)
		again, _ := digest.Extractive{}.Digest(ctx, req)
		newest := fmt.Sprintf("#%d Ana", 100+len(req.Messages)-1)
		switch n := utf8.RuneCountInString(got); {
		case err != nil:
			t.Fatalf("case %d: %v", i, err)
		case n > req.Budget:
			t.Fatalf("case %d: %d characters, over the budget of %d: %q", i, n, req.Budget, got)
		case got != again:
			t.Fatalf("case %d: two answers, %q and %q", i, got, again)
		case strings.TrimSpace(got) == "":
			t.Fatalf("case %d: blank", i)
		case req.Budget >= 220 && !strings.Contains(got, newest):
			t.Fatalf("case %d: the newest message's line is missing: %q", i, got)
		}
	}
}
