package fanout

import (
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

var coder = transcript.Agent("coder", "Coder")

// TestInFlightErases: a part prepared before a redaction the tail applies has, in what it
// has yet to write, the target and its older corrections erased as a read after the
// redaction shows them, and nothing else; a redaction applied twice counts once.
func TestInFlightErases(t *testing.T) {
	tl := newTestTail(t, memlog.New(), 100, 1<<20)
	var f InFlight
	f.Prepare(tl)
	target := transcript.Message{Seq: 2, Author: coder, Content: "a secret", Revised: 3}
	edit := transcript.Message{Seq: 3, Corrects: 2, Author: coder, Content: "the secret, edited"}
	other := transcript.Message{Seq: 4, Author: coder, Content: "another row"}
	later := transcript.Message{Seq: 6, Corrects: 4, Author: coder, Content: "an edit of another row"}
	redaction := transcript.Message{Seq: 5, Corrects: 2, Author: coder, Redacted: true}
	tl.mu.Lock()
	tl.applyCorrections([]transcript.Message{redaction, redaction})
	tl.mu.Unlock()
	if n := tl.erased.Load(); n != 1 {
		t.Errorf("a redaction applied twice counts %d times, want once", n)
	}
	if !f.stale() {
		t.Fatal("the part is not stale after a redaction")
	}
	for _, m := range []*transcript.Message{&target, &edit, &other, &later, nil} {
		if !f.erase(m) {
			t.Fatal("erase lost the redactions")
		}
	}
	if f.stale() {
		t.Error("the part is stale once erase took the redaction in")
	}
	for _, c := range []struct {
		what     string
		m        transcript.Message
		content  string
		redacted bool
		revised  transcript.Sequence
	}{
		{"the target", target, "", true, 5},
		{"its older edit", edit, "", true, 0},
		{"another row", other, "another row", false, 0},
		{"another row's edit", later, "an edit of another row", false, 0},
	} {
		if c.m.Content != c.content || c.m.Redacted != c.redacted || c.m.Revised != c.revised {
			t.Errorf("%s: content %q, redacted %v, revised %d; want %q, %v, %d", c.what, c.m.Content, c.m.Redacted, c.m.Revised, c.content, c.redacted, c.revised)
		}
	}
}

// TestInFlightLosesTrack: a part prepared before more redactions than the tail keeps can no
// longer be told what they erased: erase reports false, and the stream ends.
func TestInFlightLosesTrack(t *testing.T) {
	tl := newTestTail(t, memlog.New(), 100, 1<<20)
	var behind, caughtUp InFlight
	behind.Prepare(tl)
	tl.mu.Lock()
	for i := range 2 * maxErasures {
		tl.applyCorrections([]transcript.Message{{Seq: transcript.Sequence(2*i + 2), Corrects: transcript.Sequence(2*i + 1), Author: coder, Redacted: true}})
	}
	tl.mu.Unlock()
	caughtUp.Prepare(tl)
	tl.mu.Lock()
	tl.applyCorrections([]transcript.Message{{Seq: 1 << 20, Corrects: 7, Author: coder, Redacted: true}})
	tl.mu.Unlock()
	m := transcript.Message{Seq: 7, Author: coder, Content: "a secret"}
	if behind.erase(&m) {
		t.Errorf("a part %d redactions behind erases, want false", 2*maxErasures+1)
	}
	if !caughtUp.erase(&m) || m.Content != "" || !m.Redacted {
		t.Errorf("a part one redaction behind: content %q, redacted %v; want it erased", m.Content, m.Redacted)
	}
}
