package deskmcp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// TestByteBudgetNoteNamesTheByteBudget: a read cut by the service's byte budget, with a
// max_tokens that holds all it could give, says the rest did not fit in the byte budget,
// not in max_tokens.
func TestByteBudgetNoteNamesTheByteBudget(t *testing.T) {
	st, a := budgetedSession(t, 250)
	for i := range 6 {
		appendAs(t, st, transcript.Message{Author: ana, Content: fmt.Sprintf("row %03d ", i) + strings.Repeat("x", 92)})
	}
	r, text := a.Read(deskmcp.ReadDeskArgs{MaxTokens: 100000})
	if r.Remaining == 0 {
		t.Fatalf("the byte budget cut nothing: %s", text)
	}
	header, _, _ := strings.Cut(text, "\n")
	if strings.Contains(header, "max_tokens") {
		t.Errorf("read cut by the byte budget (max_tokens 100000 holds every row) blames max_tokens:\n%s", header)
	}
}

// TestEditReplayAfterRedactionSaysEdited: A edits its message with a key; the operator then
// redacts the message, which erases A's edit too. A's retry of the edit replays it, and the
// answer says A edited (its edit, since erased), never that A redacted.
func TestEditReplayAfterRedactionSaysEdited(t *testing.T) {
	st, _ := sqliteStore(t)
	a := connect(t, service(t, st), agentA)
	m := a.Post(deskmcp.PostMessageArgs{Content: "hello"})
	var edit transcript.Message
	if _, err := a.Call("edit_message", deskmcp.EditMessageArgs{Seq: m.Seq, Content: "hello again", Key: "k1"}, &edit); err != nil {
		t.Fatal(err)
	}
	red := appendAs(t, st, transcript.Message{Author: transcript.Operator(), Corrects: m.Seq, Redacted: true})
	var replay transcript.Message
	text, err := a.Call("edit_message", deskmcp.EditMessageArgs{Seq: m.Seq, Content: "hello again", Key: "k1"}, &replay)
	if err != nil {
		t.Fatalf("replay refused: %v", err)
	}
	first, _, _ := strings.Cut(text, "\n")
	if !strings.HasPrefix(first, "Edited") {
		t.Errorf("edit_message's replay of edit #%d (the redaction is the operator's #%d) answers:\n%s", edit.Seq, red.Seq, text)
	}
}

// TestReplyToCorrectionSaysWhy: a reply to a correction row is refused, saying that the row
// is a correction and which message to reply to instead.
func TestReplyToCorrectionSaysWhy(t *testing.T) {
	st, _ := sqliteStore(t)
	a := connect(t, service(t, st), agentA)
	m := a.Post(deskmcp.PostMessageArgs{Content: "hello"})
	var edit transcript.Message
	if _, err := a.Call("edit_message", deskmcp.EditMessageArgs{Seq: m.Seq, Content: "hello again"}, &edit); err != nil {
		t.Fatal(err)
	}
	var out transcript.Message
	text, err := a.Call("post_message", deskmcp.PostMessageArgs{Content: "thanks", Parent: edit.Seq}, &out)
	if err == nil {
		t.Fatalf("a reply to correction #%d was stored: %s", edit.Seq, text)
	}
	if !strings.Contains(text, "correction") {
		t.Errorf("a reply to correction #%d is refused without saying why:\n%s", edit.Seq, text)
	}
}

// TestTooLongArgumentNamesItsBound: a key one byte over transcript.MaxKeyLen, and an
// audience of MaxAudience+1 entries, are refused naming the bound they break.
func TestTooLongArgumentNamesItsBound(t *testing.T) {
	st, _ := sqliteStore(t)
	a := connect(t, service(t, st), agentA)
	var audience []string
	for i := range transcript.MaxAudience + 1 {
		audience = append(audience, fmt.Sprintf("agent:r%d", i))
	}
	for _, args := range []deskmcp.PostMessageArgs{
		{Content: "hello", Key: strings.Repeat("k", transcript.MaxKeyLen+1)},
		{Content: "hello", Audience: audience},
	} {
		var out transcript.Message
		text, err := a.Call("post_message", args, &out)
		if err == nil {
			t.Fatalf("stored: %s", text)
		}
		if !strings.Contains(text, fmt.Sprint(transcript.MaxKeyLen)) && !strings.Contains(text, fmt.Sprint(transcript.MaxAudience)) {
			t.Errorf("refusal names no bound: %s", text)
		}
	}
}

// TestCorrectionIsNoThread: a correction row is no thread's root (nothing replies to it):
// read_desk refuses its seq as a thread, as one that does not exist.
func TestCorrectionIsNoThread(t *testing.T) {
	st, _ := sqliteStore(t)
	a := connect(t, service(t, st), agentA)
	m := a.Post(deskmcp.PostMessageArgs{Content: "hello"})
	var edit transcript.Message
	if _, err := a.Call("edit_message", deskmcp.EditMessageArgs{Seq: m.Seq, Content: "hello again"}, &edit); err != nil {
		t.Fatal(err)
	}
	var r deskmcp.ReadDeskResult
	if text, err := a.Call("read_desk", deskmcp.ReadDeskArgs{Thread: edit.Seq}, &r); err == nil {
		t.Errorf("read_desk thread=%d (a correction) answered: %s", edit.Seq, text)
	}
}
