package deskmcp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/render"
)

// randomBlocks returns a view's blocks: messages of random length with elisions between.
func randomBlocks(r *rand.Rand) ([]transcript.Message, []transcript.Elision) {
	var msgs []transcript.Message
	var elided []transcript.Elision
	seq := transcript.Sequence(1)
	for range r.IntN(12) {
		if r.IntN(3) == 0 {
			elided = append(elided, transcript.Elision{From: seq, Through: seq, Count: 1, Readers: []transcript.Author{transcript.Operator()}})
			seq++
		}
		msgs = append(msgs, transcript.Message{Seq: seq, Author: transcript.Person("ana", "Ana"), Content: strings.Repeat("word ", 1+r.IntN(60))})
		seq++
	}
	if r.IntN(3) == 0 {
		elided = append(elided, transcript.Elision{From: seq, Through: seq + 2, Count: 3, Readers: []transcript.Author{transcript.Operator()}})
	}
	return msgs, elided
}

// TestFitting checks firstThatFit and newestFirst on random views and bounds: what they keep
// fits, is the oldest (or newest) whole chunks, and one chunk more would not have fit. It
// draws 400 views, a fifth of them under the race detector (proptest.Desks: the checks run
// on one goroutine).
func TestFitting(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	header := func(n int) string { return fmt.Sprintf("Header line with a count %d.", n) }
	for i := range proptest.Desks(400, 80) {
		msgs, elided := randomBlocks(r)
		blocks := render.Blocks(msgs, elided...)
		max := 10 + r.IntN(600)

		kept, text, ok := firstThatFit(blocks, max, header)
		if ok {
			if n := countTokens(text); n > max {
				t.Fatalf("case %d: firstThatFit's text takes %d tokens, over %d", i, n, max)
			}
			lead, chunks := chunksAfter(blocks)
			end := len(lead)
			for _, c := range chunks[:kept] {
				end += len(c)
			}
			if want := joinBlocks(header(kept), blocks[:end]); text != want {
				t.Fatalf("case %d: firstThatFit kept %d messages but its text is not their blocks", i, kept)
			}
			if kept < len(chunks) {
				more := joinBlocks(header(kept+1), blocks[:end+len(chunks[kept])])
				if countTokens(more) <= max {
					t.Fatalf("case %d: firstThatFit kept %d messages in %d tokens; %d would fit", i, kept, max, kept+1)
				}
			}
		}

		pinned := len(msgs) > 0 && r.IntN(2) == 0
		dropped, text, ok := newestFirst(blocks, pinned, max, header)
		if !ok {
			continue
		}
		if n := countTokens(text); n > max {
			t.Fatalf("case %d: newestFirst's text takes %d tokens, over %d", i, n, max)
		}
		if pinned && !strings.Contains(text, render.Envelope(msgs[0])) {
			t.Fatalf("case %d: newestFirst dropped the pinned root", i)
		}
		if len(msgs) > 0 && !strings.Contains(text, render.Envelope(msgs[len(msgs)-1])) {
			t.Fatalf("case %d: newestFirst dropped the newest message", i)
		}
		first := 0
		if pinned {
			first = 1
		}
		for j, m := range msgs[first:] {
			if in := strings.Contains(text, render.Envelope(m)); in != (j >= dropped) {
				t.Fatalf("case %d: newestFirst dropped %d, but message %d (of the unpinned) is in the text: %v", i, dropped, j, in)
			}
		}
	}
}

// TestCountTokensConcurrently: the one codec serves every session at once (run with -race).
func TestCountTokensConcurrently(t *testing.T) {
	text := strings.Repeat("The deploy of service 7 went through the canary. ", 50)
	want := countTokens(text)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 20 {
				if got := countTokens(text); got != want {
					t.Errorf("countTokens = %d, then %d", want, got)
				}
			}
		})
	}
	wg.Wait()
}
