package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/server"
)

// TestCorrectionFoldsAgain: an edit or a redaction of a folded row deletes the digests that
// stand for it; serve then folds the conversation again in the background, as after an
// append, so that its readers do not go without a digest until the next message.
func TestCorrectionFoldsAgain(t *testing.T) {
	e := newEnv(t, newMemDigestStore(), server.Options{Digester: digest.Extractive{}, DigestPolicy: smallPolicy, Rate: rate.Inf})
	coderTok := e.token("eng", coder)
	var roots, replies []transcript.Message
	for i := range 6 {
		roots = append(roots, e.post(coderTok, map[string]any{"content": fmt.Sprintf("root number %d", i)}))
	}
	for i := range 6 {
		replies = append(replies, e.post(coderTok, map[string]any{"content": fmt.Sprintf("reply number %d", i), "parent": roots[5].Seq}))
	}
	channel := "/v1/desks/eng/view?digest=true&window=2"
	thread := fmt.Sprintf("/v1/desks/eng/view?digest=true&window=2&thread=%d", roots[5].Seq)
	waitDigest(t, e, channel, coderTok, roots[3].Seq)
	waitDigest(t, e, thread, coderTok, replies[3].Seq)

	// A typo fixed in the oldest root: the channel folds again, with the fixed text.
	if r := e.do("PATCH", fmt.Sprintf("/v1/desks/eng/messages/%d", roots[0].Seq), coderTok, map[string]any{"content": "root number 0, fixed"}); r.status != http.StatusCreated {
		t.Fatalf("edit: %d %s", r.status, r.body)
	}
	waitDigestText(t, e, channel, coderTok, roots[3].Seq, "root number 0, fixed", "")
	// A reply redacted: its thread folds again, without it.
	if r := e.do("DELETE", fmt.Sprintf("/v1/desks/eng/messages/%d", replies[0].Seq), coderTok, nil); r.status != http.StatusCreated {
		t.Fatalf("redact: %d %s", r.status, r.body)
	}
	waitDigestText(t, e, thread, coderTok, replies[3].Seq, "reply number 1", "reply number 0")
}

// waitDigestText waits, up to 10 s, for the view at path to carry a digest through at
// least through whose text holds want and, unless absent is "", not absent.
func waitDigestText(t *testing.T, e *env, path, secret string, through transcript.Sequence, want, absent string) {
	t.Helper()
	var last *transcript.Digest
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		last = decode[digestView](t, e.do("GET", path, secret, nil), 200).Digest
		if last != nil && last.Through >= through && strings.Contains(last.Text, want) && (absent == "" || !strings.Contains(last.Text, absent)) {
			return
		}
	}
	t.Fatalf("GET %s: no digest through %d holding %q (and not %q) came within 10 s; the last: %+v", path, through, want, absent, last)
}
