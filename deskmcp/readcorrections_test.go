package deskmcp_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/render"
)

// TestReadDeskDeliversCorrections: B, who was shown A's root, gets A's edit of it on its
// next read_desk, structured and in its envelope, once; then A's redaction of it, once,
// with no content. A's own corrections never come back to A.
func TestReadDeskDeliversCorrections(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b := connect(t, svc, agentA), connect(t, svc, agentB)
		root := a.Post(deskmcp.PostMessageArgs{Content: "deploy at 22:00"})
		a.Read(deskmcp.ReadDeskArgs{})
		b.Read(deskmcp.ReadDeskArgs{}) // shows the root
		b.Read(deskmcp.ReadDeskArgs{}) // acknowledges it

		e, _, err := edit(a, deskmcp.EditMessageArgs{Seq: root.Seq, Content: "deploy at 23:00"})
		if err != nil {
			t.Fatal(err)
		}
		r, text := b.Read(deskmcp.ReadDeskArgs{})
		if diff := gocmp.Diff([]transcript.Message{e}, r.Corrections, sameMessages); diff != "" || len(r.Messages) != 0 {
			t.Errorf("B's read = %+v, want the edit and no message (-want +got):\n%s", r, diff)
		}
		if !strings.Contains(text, render.Envelope(e)) || !strings.Contains(text, "1 correction") {
			t.Errorf("B's read's text lacks the edit:\n%s", text)
		}
		if r, _ := b.Read(deskmcp.ReadDeskArgs{}); len(r.Corrections) != 0 || len(r.Messages) != 0 {
			t.Errorf("B's next read = %+v, want nothing: the edit was delivered", r)
		}
		if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Corrections) != 0 {
			t.Errorf("A's read = %+v, want none of its own corrections", r)
		}

		red, _, err := redact(a, deskmcp.RedactMessageArgs{Seq: root.Seq})
		if err != nil {
			t.Fatal(err)
		}
		r, text = b.Read(deskmcp.ReadDeskArgs{})
		if diff := gocmp.Diff([]transcript.Message{red}, r.Corrections, sameMessages); diff != "" {
			t.Errorf("B's read's corrections (-want +got):\n%s", diff)
		}
		if !strings.Contains(text, render.Envelope(red)) || strings.Contains(text, "deploy at") || strings.Contains(fmt.Sprintf("%+v", r), "deploy at") {
			t.Errorf("B's read after the redaction:\n%s\n%+v", text, r)
		}
		if r, _ := b.Read(deskmcp.ReadDeskArgs{}); len(r.Corrections) != 0 {
			t.Errorf("B's next read = %+v, want nothing: the redaction was delivered", r)
		}
	})
}

// TestAsideCorrectionNeverReachesOutsider: Ana edits an aside to A: A gets the edit, B,
// who was shown the aside's elision, gets neither the edit nor any word of it.
func TestAsideCorrectionNeverReachesOutsider(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b := connect(t, svc, agentA), connect(t, svc, agentB)
		aside := appendAs(t, st, transcript.Message{Author: ana, Content: "the code is 1234", Audience: []transcript.Author{agentA}})
		for _, p := range []*agent{a, b} {
			p.Read(deskmcp.ReadDeskArgs{})
			p.Read(deskmcp.ReadDeskArgs{})
		}
		e := appendAs(t, st, transcript.Message{Author: ana, Corrects: aside.Seq, Content: "the code is 5678"})
		if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Corrections) != 1 || r.Corrections[0].Seq != e.Seq {
			t.Errorf("A's read = %+v, want Ana's edit of the aside", r)
		}
		r, text := b.Read(deskmcp.ReadDeskArgs{})
		if len(r.Corrections) != 0 {
			t.Errorf("B's read = %+v, want no correction", r)
		}
		for _, out := range []string{text, fmt.Sprintf("%+v", r)} {
			if strings.Contains(out, "code is") {
				t.Errorf("the aside's edit reaches B:\n%s", out)
			}
		}
	})
}

// TestReadDeskCorrectionsWithinTokens: news and edits of rows B was shown, interleaved,
// read under a max_tokens that holds a message or two at a time: every read's text holds
// exactly the corrections of its structured result, and the reads together deliver every
// message and every edit once.
func TestReadDeskCorrectionsWithinTokens(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b := connect(t, svc, agentA), connect(t, svc, agentB)
		var roots, news, edits []transcript.Message
		for i := range 4 {
			roots = append(roots, a.Post(deskmcp.PostMessageArgs{Content: fmt.Sprintf("root %d, as first written", i)}))
		}
		b.Read(deskmcp.ReadDeskArgs{})
		b.Read(deskmcp.ReadDeskArgs{})
		for i, root := range roots {
			news = append(news, a.Post(deskmcp.PostMessageArgs{Content: fmt.Sprintf("news %d: %s", i, strings.Repeat("word ", 40))}))
			e, _, err := edit(a, deskmcp.EditMessageArgs{Seq: root.Seq, Content: fmt.Sprintf("root %d, edited", i)})
			if err != nil {
				t.Fatal(err)
			}
			edits = append(edits, e)
		}
		var gotNews, gotEdits []transcript.Sequence
		for range 20 {
			r, text := b.Read(deskmcp.ReadDeskArgs{MaxTokens: 250})
			if len(r.Messages) == 0 && len(r.Corrections) == 0 {
				break
			}
			if n := strings.Count(text, " corrects=\""); n != len(r.Corrections) {
				t.Errorf("a read's text holds %d corrections, its result %d:\n%s\n%+v", n, len(r.Corrections), text, r.Corrections)
			}
			for _, c := range r.Corrections {
				if !strings.Contains(text, render.Envelope(c)) {
					t.Errorf("a read's text lacks correction #%d:\n%s", c.Seq, text)
				}
			}
			gotNews = append(gotNews, seqs(r.Messages)...)
			gotEdits = append(gotEdits, seqs(r.Corrections)...)
		}
		if !slices.Equal(gotNews, seqs(news)) || !slices.Equal(gotEdits, seqs(edits)) {
			t.Errorf("the reads delivered news %v and edits %v, want %v and %v", gotNews, gotEdits, seqs(news), seqs(edits))
		}
	})
}

// TestReadDeskCorrectionsOneByOne: a read whose max_tokens holds one correction but not
// all of those before the next message delivers them a few at a time, each once, rather
// than refusing every read.
func TestReadDeskCorrectionsOneByOne(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b := connect(t, svc, agentA), connect(t, svc, agentB)
		var roots, edits []transcript.Message
		for i := range 4 {
			roots = append(roots, a.Post(deskmcp.PostMessageArgs{Content: fmt.Sprintf("root %d, as first written", i)}))
		}
		b.Read(deskmcp.ReadDeskArgs{})
		b.Read(deskmcp.ReadDeskArgs{})
		for i, root := range roots {
			e, _, err := edit(a, deskmcp.EditMessageArgs{Seq: root.Seq, Content: fmt.Sprintf("root %d, edited: %s", i, strings.Repeat("word ", 40))})
			if err != nil {
				t.Fatal(err)
			}
			edits = append(edits, e)
		}
		var got []transcript.Sequence
		for range 20 {
			r, _ := b.Read(deskmcp.ReadDeskArgs{MaxTokens: 150})
			if len(r.Messages) == 0 && len(r.Corrections) == 0 {
				break
			}
			got = append(got, seqs(r.Corrections)...)
		}
		if !slices.Equal(got, seqs(edits)) {
			t.Errorf("the reads delivered edits %v, want %v", got, seqs(edits))
		}
	})
}
