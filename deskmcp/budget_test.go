package deskmcp_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

var o200k = codec.NewO200kBase()

func tokens(t testing.TB, text string) int {
	t.Helper()
	n, err := o200k.Count(text)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// longContent is a message of about 150 to 300 tokens.
func longContent(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Report %d: ", i)
	for j := range 6 + i%5*2 {
		fmt.Fprintf(&b, "the deploy of service %d step %d went through the canary and the database migration; ", i, j%7)
	}
	return b.String()
}

// TestBudgetDeliversInPieces: a delta of 200 long messages (and 20 asides A may not read), read with a small max_tokens,
// arrives over many reads, each within the bound, together complete, in order, nothing
// twice; a crash between two reads delivers the last piece again and loses nothing.
func TestBudgetDeliversInPieces(t *testing.T) {
	st, reopen := sqliteStore(t)
	appendAs(t, st, transcript.Message{Author: ana, Content: "start"})
	a := connect(t, service(t, st), agentA)
	a.Read(deskmcp.ReadDeskArgs{})
	var want []transcript.Sequence
	for i := range 220 {
		if i%11 == 3 { // an aside to B: an elision for A, which must come along too
			appendAs(t, st, transcript.Message{Author: ana, Content: longContent(i), Audience: []transcript.Author{agentB}})
		} else {
			want = append(want, appendAs(t, st, transcript.Message{Author: ana, Content: longContent(i)}).Seq)
		}
	}
	const maxTokens = 2000
	var got []transcript.Sequence
	elided := 0
	reads, crashed := 0, false
	for reads < 200 {
		r, text := a.Read(deskmcp.ReadDeskArgs{MaxTokens: maxTokens})
		reads++
		if n := tokens(t, text); n > maxTokens {
			t.Fatalf("read %d: its text takes %d tokens, over max_tokens %d", reads, n, maxTokens)
		}
		if r.Reinitialized != "" {
			t.Fatalf("read %d reinitialized: %s", reads, r.Reinitialized)
		}
		if len(r.Messages) == 0 && len(r.Elided) == 0 {
			break
		}
		if left := len(want) - len(got) - len(r.Messages); left > 0 && !strings.Contains(text, fmt.Sprintf(" %d more message", left)) {
			t.Errorf("read %d leaves %d messages and does not say so:\n%.300s", reads, left, text)
		} else if r.Remaining != left {
			t.Errorf("read %d leaves %d messages; its structured content says remaining %d", reads, left, r.Remaining)
		}
		if reads == 4 && !crashed {
			// The process dies before acknowledging this piece: the next session gets
			// exactly this piece again.
			crashed = true
			again, _ := connect(t, service(t, reopen()), agentA).Read(deskmcp.ReadDeskArgs{MaxTokens: maxTokens})
			if !slices.Equal(seqs(again.Messages), seqs(r.Messages)) {
				t.Fatalf("after a crash, the piece is %v, want the same %v", seqs(again.Messages), seqs(r.Messages))
			}
			a = connect(t, service(t, reopen()), agentA)
			r, _ = a.Read(deskmcp.ReadDeskArgs{MaxTokens: maxTokens})
		}
		got = append(got, seqs(r.Messages)...)
		for _, e := range r.Elided {
			elided += e.Count
		}
	}
	t.Logf("%d messages and %d elided rows in %d reads of at most %d tokens", len(got), elided, reads, maxTokens)
	if reads < 10 {
		t.Errorf("200 long messages came in %d reads of %d tokens: the bound did not cut them", reads, maxTokens)
	}
	if len(want) != 200 || !slices.Equal(got, want) {
		t.Errorf("the pieces hold %d messages %v..., want the %d posted, in order, each once", len(got), got[:min(len(got), 10)], len(want))
	}
	if elided != 20 {
		t.Errorf("the pieces elide %d rows, want the 20 asides", elided)
	}
}

// TestBudgetViewDropsOldest: a view under max_tokens drops its oldest messages, never the
// thread's root, says how many, and fits; one that cannot hold the newest message is a
// tool error.
func TestBudgetViewDropsOldest(t *testing.T) {
	st, _ := sqliteStore(t)
	a := connect(t, service(t, st), agentA)
	root := appendAs(t, st, transcript.Message{Author: ana, Content: "the long thread"})
	var replies []transcript.Sequence
	for i := range 40 {
		if i%7 == 2 {
			appendAs(t, st, transcript.Message{Author: ana, Content: "for B only", Parent: root.Seq, Audience: []transcript.Author{agentB}})
			continue
		}
		replies = append(replies, appendAs(t, st, transcript.Message{Author: ana, Content: longContent(i), Parent: root.Seq}).Seq)
	}
	const maxTokens = 1500
	var p transcript.Projection
	text, err := a.Call("view", deskmcp.ViewArgs{Thread: root.Seq, Window: 100, MaxTokens: maxTokens}, &p)
	if err != nil {
		t.Fatal(err)
	}
	if n := tokens(t, text); n > maxTokens {
		t.Errorf("the view's text takes %d tokens, over %d", n, maxTokens)
	}
	if len(p.Messages) < 2 || p.Messages[0].Seq != root.Seq {
		t.Fatalf("the view holds %v, want the root first", seqs(p.Messages))
	}
	kept := seqs(p.Messages[1:])
	dropped := len(replies) - len(kept)
	if dropped <= 0 || !slices.Equal(kept, replies[dropped:]) {
		t.Fatalf("the view keeps replies %v, want the newest of %v", kept, replies)
	}
	m := regexp.MustCompile(`The oldest (\d+) messages did not fit`).FindStringSubmatch(text)
	if m == nil || m[1] != strconv.Itoa(dropped) {
		t.Errorf("the view does not say it dropped %d messages:\n%.400s", dropped, text)
	}
	for _, e := range p.Elided {
		if e.From < kept[0] {
			t.Errorf("the view keeps the elision %d..%d, older than its oldest kept reply %d", e.From, e.Through, kept[0])
		}
	}
	var ignored any
	if text, err := a.Call("view", deskmcp.ViewArgs{Thread: root.Seq, MaxTokens: 100}, &ignored); err == nil || !strings.Contains(text, "max_tokens too small") {
		t.Errorf("a view in 100 tokens = %q, %v; want max_tokens too small", text, err)
	}
	if text, err := a.Call("read_desk", deskmcp.ReadDeskArgs{Thread: root.Seq, MaxTokens: 100}, &ignored); err == nil || !strings.Contains(text, "max_tokens too small") {
		t.Errorf("a first read in 100 tokens = %q, %v; want max_tokens too small", text, err)
	}
}

// TestBudgetNothingNew: a read with nothing new answers so under any max_tokens, even one
// its first line alone does not fit: there is nothing to cut.
func TestBudgetNothingNew(t *testing.T) {
	st, _ := sqliteStore(t)
	appendAs(t, st, transcript.Message{Author: ana, Content: "start"})
	a := connect(t, service(t, st), agentA)
	a.Read(deskmcp.ReadDeskArgs{})
	r, _ := a.Read(deskmcp.ReadDeskArgs{MaxTokens: 1})
	if len(r.Messages) != 0 || len(r.Elided) != 0 || r.Remaining != 0 || r.Reinitialized != "" {
		t.Errorf("a read with nothing new under max_tokens 1: %+v, want nothing new", r)
	}
}
