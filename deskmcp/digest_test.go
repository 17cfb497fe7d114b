package deskmcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/render"
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
