package deskmcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
)

// TestReadDeskDigest: a first read and view with digest true give the conversation's
// digest, its tag the first block after the header line; a delta and a view without
// digest give none.
func TestReadDeskDigest(t *testing.T) {
	st := newMemStore()
	svc := service(t, st)
	appendAs(t, st, transcript.Message{Author: ana, Content: "ASIDEWORD", Audience: []transcript.Author{agentA}})
	long := strings.Repeat("words that fill the digest ", 20)
	for i := range 35 { // the oldest 5 fold, below the first read's window of 30
		content := fmt.Sprintf("root %d", i)
		if i < 5 {
			content += " " + long
		}
		appendAs(t, st, transcript.Message{Author: ana, Content: content})
	}
	d, folded, err := digest.Fold(t.Context(), st.Desk(desk), digest.Extractive{}, digest.Policy{KeepLive: 30, FoldAfter: 2}, transcript.Conversation{Desk: desk})
	if err != nil || !folded {
		t.Fatalf("fold: %v, %v", folded, err)
	}
	if strings.Contains(d.Text, "ASIDEWORD") {
		t.Fatalf("digest %q holds the aside's word", d.Text)
	}
	tag := render.DigestTag(d)

	a := connect(t, svc, agentA)
	r, text := a.Read(deskmcp.ReadDeskArgs{})
	if r.Digest == nil || *r.Digest != d {
		t.Errorf("first read's digest %+v, want %+v", r.Digest, d)
	}
	if lines := strings.SplitN(text, "\n", 2); len(lines) < 2 || !strings.HasPrefix(lines[1], tag) {
		t.Errorf("first read's text does not give the digest first:\n%s", text)
	}
	appendAs(t, st, transcript.Message{Author: ana, Content: "news"})
	if r, text := a.Read(deskmcp.ReadDeskArgs{}); r.Digest != nil || strings.Contains(text, "<digest ") {
		t.Errorf("a delta carries a digest: %+v\n%s", r.Digest, text)
	}

	var p deskmcp.ViewResult
	text, err = a.Call("view", deskmcp.ViewArgs{Digest: true, Window: 2, Before: 20}, &p)
	if err != nil || p.Digest == nil || *p.Digest != d || !strings.Contains(text, tag) {
		t.Errorf("view with digest: %v %+v\n%s", err, p.Digest, text)
	}
	p = deskmcp.ViewResult{}
	if text, err = a.Call("view", deskmcp.ViewArgs{Window: 2}, &p); err != nil || p.Digest != nil || strings.Contains(text, "<digest ") {
		t.Errorf("view without digest: %v %+v\n%s", err, p.Digest, text)
	}
	// max_tokens too small for the digest and the newest message: the digest is left out.
	p = deskmcp.ViewResult{}
	if text, err = a.Call("view", deskmcp.ViewArgs{Digest: true, Window: 2, Before: 20, MaxTokens: 150}, &p); err != nil || p.Digest != nil || strings.Contains(text, "<digest ") {
		t.Errorf("view with digest in 60 tokens: %v %+v\n%s", err, p.Digest, text)
	}
}

// TestReadDeskDigestCorrected: a participant given the channel's digest on its first read
// starts over on its next read (digest_corrected) once a folded message is redacted, also
// after a delta in between, and the digest of that read no longer holds the erased word;
// an edit of a message the digest does not stand for is a plain delta.
func TestReadDeskDigestCorrected(t *testing.T) {
	st := newMemStore()
	svc := service(t, st)
	for i := range 40 { // the oldest 10 fold, below the first read's window of 30
		content := fmt.Sprintf("root %d", i)
		if i == 2 {
			content = "OKAPI-SECRET-WORD"
		}
		appendAs(t, st, transcript.Message{Author: ana, Content: content})
	}
	channel := transcript.Conversation{Desk: desk}
	if _, folded, err := digest.Fold(t.Context(), st.Desk(desk), digest.Extractive{}, digest.Policy{KeepLive: 30, FoldAfter: 2}, channel); err != nil || !folded {
		t.Fatalf("fold: %v, %v", folded, err)
	}
	a := connect(t, svc, agentA)
	r, _ := a.Read(deskmcp.ReadDeskArgs{})
	if r.Digest == nil || !strings.Contains(r.Digest.Text, "OKAPI-SECRET-WORD") {
		t.Fatalf("first read's digest %+v; want row 3's word in it", r.Digest)
	}
	newest := appendAs(t, st, transcript.Message{Author: ana, Content: "news"})
	appendAs(t, st, transcript.Message{Author: ana, Corrects: newest.Seq, Content: "news, edited"})
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); r.Reinitialized != "" || len(r.Messages) != 1 {
		t.Fatalf("the read after a new message and its edit: %+v; want a delta of the message", r)
	}
	appendAs(t, st, transcript.Message{Author: ana, Corrects: 3, Redacted: true})
	r, text := a.Read(deskmcp.ReadDeskArgs{})
	if r.Reinitialized != sharing.DigestCorrected.String() {
		t.Fatalf("the read after a redaction of a folded message: reinitialized %q, want %q\n%s", r.Reinitialized, sharing.DigestCorrected, text)
	}
	if strings.Contains(text, "OKAPI-SECRET-WORD") || r.Digest != nil && strings.Contains(r.Digest.Text, "OKAPI-SECRET-WORD") {
		t.Errorf("the read that started over still gives the erased word: %+v\n%s", r.Digest, text)
	}
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); r.Reinitialized != "" {
		t.Errorf("the read after the one that started over: reinitialized %q, want a delta", r.Reinitialized)
	}
}
