package deskmcp_test

import (
	"fmt"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/render"
)

// correctionStores are the stores the corrections tests run on: each opens a new, empty
// one (PostgreSQL's skips without a server, see pgStore).
var correctionStores = []struct {
	name string
	open func(testing.TB) store
}{
	{"memlog", func(testing.TB) store { return newMemStore() }},
	{"sqlite", func(t testing.TB) store { st, _ := sqliteStore(t); return st }},
	{"pg", func(t testing.TB) store { st, _ := pgStore(t); return st }},
}

// forEachStore runs test on a new store of each kind.
func forEachStore(t *testing.T, test func(t *testing.T, st store)) {
	for _, s := range correctionStores {
		t.Run(s.name, func(t *testing.T) { test(t, s.open(t)) })
	}
}

// edit and redact call edit_message and redact_message, returning the stored correction,
// the text, and a tool error.
func edit(a *agent, args deskmcp.EditMessageArgs) (transcript.Message, string, error) {
	var m transcript.Message
	text, err := a.Call("edit_message", args, &m)
	return m, text, err
}

func redact(a *agent, args deskmcp.RedactMessageArgs) (transcript.Message, string, error) {
	var m transcript.Message
	text, err := a.Call("redact_message", args, &m)
	return m, text, err
}

// TestEditMessage: A edits its root; the edit is stored as A's correction of it, a replay
// of its key stores nothing, and B's view shows the new content marked revised.
func TestEditMessage(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b := connect(t, svc, agentA), connect(t, svc, agentB)
		root := a.Post(deskmcp.PostMessageArgs{Content: "deploy at 22:00"})

		e, text, err := edit(a, deskmcp.EditMessageArgs{Seq: root.Seq, Content: "deploy at 23:00", Key: "fix-time"})
		if err != nil {
			t.Fatal(err)
		}
		if e.Corrects != root.Seq || e.Content != "deploy at 23:00" || e.Redacted || !e.Author.Same(agentA) || e.Seq <= root.Seq || e.Parent != 0 {
			t.Fatalf("edit_message stored %+v, want A's edit of #%d", e, root.Seq)
		}
		if !strings.Contains(text, render.Envelope(e)) || !strings.Contains(text, fmt.Sprintf(`corrects="%d"`, root.Seq)) {
			t.Errorf("edit_message's text lacks the edit's envelope:\n%s", text)
		}
		if again, _, err := edit(a, deskmcp.EditMessageArgs{Seq: root.Seq, Content: "deploy at 23:00", Key: "fix-time"}); err != nil || again.Seq != e.Seq {
			t.Errorf("a replayed edit = %+v, %v; want the stored edit #%d", again, err, e.Seq)
		}

		p, vtext := b.View(deskmcp.ViewArgs{})
		if len(p.Messages) != 1 || p.Messages[0].Content != "deploy at 23:00" || p.Messages[0].Revised != e.Seq {
			t.Errorf("B's view = %+v, want the root with its new content, revised by #%d", p.Messages, e.Seq)
		}
		if !strings.Contains(vtext, fmt.Sprintf(`revised="%d"`, e.Seq)) || strings.Contains(vtext, "22:00") {
			t.Errorf("B's view's text does not show the revision:\n%s", vtext)
		}

	})
}

// TestRedactMessage: A redacts its message, after an edit; the operator redacts Ana's. Each
// redaction is stored with no content, and the rows keep their places in B's view, marked
// redacted, with no content.
func TestRedactMessage(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b, op := connect(t, svc, agentA), connect(t, svc, agentB), connect(t, svc, transcript.Operator())
		mine := a.Post(deskmcp.PostMessageArgs{Content: "the password is hunter2"})
		anas := appendAs(t, st, transcript.Message{Author: ana, Content: "my phone is 555-0100"})
		if _, _, err := edit(a, deskmcp.EditMessageArgs{Seq: mine.Seq, Content: "the password is hunter3"}); err != nil {
			t.Fatal(err)
		}

		red, text, err := redact(a, deskmcp.RedactMessageArgs{Seq: mine.Seq})
		if err != nil {
			t.Fatal(err)
		}
		if red.Corrects != mine.Seq || !red.Redacted || red.Content != "" || !red.Author.Same(agentA) {
			t.Fatalf("redact_message stored %+v, want A's redaction of #%d", red, mine.Seq)
		}
		if !strings.Contains(text, render.Envelope(red)) || strings.Contains(text, "hunter") {
			t.Errorf("redact_message's text:\n%s", text)
		}
		byOp, _, err := redact(op, deskmcp.RedactMessageArgs{Seq: anas.Seq})
		if err != nil || !byOp.Author.Same(transcript.Operator()) {
			t.Fatalf("the operator's redaction of Ana's message = %+v, %v", byOp, err)
		}

		p, vtext := b.View(deskmcp.ViewArgs{})
		want := []transcript.Message{
			{Seq: mine.Seq, Author: mine.Author, Redacted: true, Revised: red.Seq},
			{Seq: anas.Seq, Author: ana, Redacted: true, Revised: byOp.Seq},
		}
		if diff := gocmp.Diff(want, p.Messages, sameMessages); diff != "" {
			t.Errorf("B's view (-want +got):\n%s", diff)
		}
		if !strings.Contains(vtext, fmt.Sprintf(`revised="%d" redacted="true"/>`, red.Seq)) {
			t.Errorf("B's view's text does not show the redaction:\n%s", vtext)
		}
		for _, out := range []string{vtext, fmt.Sprintf("%+v", p)} {
			if strings.Contains(out, "hunter") || strings.Contains(out, "555") {
				t.Errorf("erased content reaches B:\n%s", out)
			}
		}
	})
}

// TestCorrectionRefusals: each refusal is a tool error that says why without quoting any
// content, a row the participant may not read is refused as a missing one, and none
// writes anything.
func TestCorrectionRefusals(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		svc := service(t, st)
		a, b := connect(t, svc, agentA), connect(t, svc, agentB)
		const secret = "the aside's secret"
		mine := a.Post(deskmcp.PostMessageArgs{Content: "A's words"})
		aside := appendAs(t, st, transcript.Message{Author: ana, Content: secret, Audience: []transcript.Author{agentA}})
		blank := appendAs(t, st, transcript.Message{Author: agentA, Content: " "}) // as an import stores one
		gone := a.Post(deskmcp.PostMessageArgs{Content: "A's erased words"})
		if _, _, err := redact(a, deskmcp.RedactMessageArgs{Seq: gone.Seq}); err != nil {
			t.Fatal(err)
		}
		e, _, err := edit(a, deskmcp.EditMessageArgs{Seq: mine.Seq, Content: "A's words, fixed"})
		if err != nil {
			t.Fatal(err)
		}
		head := e.Seq
		missing := head + 50

		for _, c := range []struct {
			name string
			by   *agent
			tool string
			args any
			want string
		}{
			{"a missing row", b, "edit_message", deskmcp.EditMessageArgs{Seq: missing, Content: "x"}, fmt.Sprintf("no such message %d", missing)},
			{"an aside B may not read", b, "redact_message", deskmcp.RedactMessageArgs{Seq: aside.Seq}, fmt.Sprintf("no such message %d", aside.Seq)},
			{"an edit of another's", b, "edit_message", deskmcp.EditMessageArgs{Seq: mine.Seq, Content: "x"}, "not the author"},
			{"a redaction of another's", b, "redact_message", deskmcp.RedactMessageArgs{Seq: mine.Seq}, "not the author"},
			{"an edit of an aside by one of its readers", a, "edit_message", deskmcp.EditMessageArgs{Seq: aside.Seq, Content: "x"}, "not the author"},
			{"an edit of a redacted row", a, "edit_message", deskmcp.EditMessageArgs{Seq: gone.Seq, Content: "x"}, "redacted"},
			{"a redaction of a redacted row", a, "redact_message", deskmcp.RedactMessageArgs{Seq: gone.Seq}, "redacted"},
			{"an edit of a correction", a, "edit_message", deskmcp.EditMessageArgs{Seq: e.Seq, Content: "x"}, "bad message"},
			{"an edit of a blank row", a, "edit_message", deskmcp.EditMessageArgs{Seq: blank.Seq, Content: "x"}, "bad message"},
			{"an edit without content", a, "edit_message", deskmcp.EditMessageArgs{Seq: mine.Seq, Content: "  "}, "bad message"},
			{"a key naming another row", a, "edit_message", deskmcp.EditMessageArgs{Seq: mine.Seq, Content: "x", Key: "k"}, "key"},
			{"seq 0", a, "edit_message", map[string]any{"seq": 0, "content": "x"}, "seq"},
			{"no seq", a, "redact_message", map[string]any{}, "seq"},
			{"content in a redaction", a, "redact_message", map[string]any{"seq": mine.Seq, "content": "x"}, "content"},
		} {
			if c.name == "a key naming another row" {
				a.Post(deskmcp.PostMessageArgs{Content: "keyed", Key: "k"})
				head++
			}
			var ignored any
			text, err := c.by.Call(c.tool, c.args, &ignored)
			if err == nil || !strings.Contains(text, c.want) {
				t.Errorf("%s: %s = %q, %v; want a tool error saying %q", c.name, c.tool, text, err, c.want)
			}
			if strings.Contains(text, "words") || strings.Contains(text, secret) {
				t.Errorf("%s: the refusal quotes content: %q", c.name, text)
			}
		}
		// The aside and a missing row get the same answer, but for the seq they name.
		for _, tool := range []string{"edit_message", "redact_message"} {
			args := func(seq transcript.Sequence) any {
				if tool == "edit_message" {
					return deskmcp.EditMessageArgs{Seq: seq, Content: "x"}
				}
				return deskmcp.RedactMessageArgs{Seq: seq}
			}
			var ignored any
			gotAside, _ := b.Call(tool, args(aside.Seq), &ignored)
			gotMissing, _ := b.Call(tool, args(missing), &ignored)
			if strings.ReplaceAll(gotAside, fmt.Sprint(aside.Seq), "N") != strings.ReplaceAll(gotMissing, fmt.Sprint(missing), "N") {
				t.Errorf("%s refuses the aside otherwise than a missing row:\n%s\n%s", tool, gotAside, gotMissing)
			}
		}
		if pg, err := st.Log(desk).ReadBefore(t.Context(), 0, 1); err != nil || pg.Messages[0].Seq != head {
			t.Errorf("the desk's newest row is %+v (%v), want #%d: a refused correction wrote something", pg.Messages, err, head)
		}
	})
}

// TestCorrectionAcknowledges: an edit or a redaction acknowledges the participant's staged
// read of the conversation its target is in, as a post there does: after a crash, that
// read is not delivered again; a read of another conversation stays staged.
func TestCorrectionAcknowledges(t *testing.T) {
	forEachStore(t, func(t *testing.T, st store) {
		root := appendAs(t, st, transcript.Message{Author: agentA, Content: "A's root"})
		reply := appendAs(t, st, transcript.Message{Author: agentA, Content: "A's reply", Parent: root.Seq})
		a := connect(t, service(t, st), agentA)
		a.Read(deskmcp.ReadDeskArgs{})
		a.Read(deskmcp.ReadDeskArgs{})
		a.Read(deskmcp.ReadDeskArgs{Thread: root.Seq})
		a.Read(deskmcp.ReadDeskArgs{Thread: root.Seq})
		news := appendAs(t, st, transcript.Message{Author: ana, Content: "news"})
		appendAs(t, st, transcript.Message{Author: ana, Content: "thread news", Parent: root.Seq})
		a.Read(deskmcp.ReadDeskArgs{})                 // delivers news, staged
		a.Read(deskmcp.ReadDeskArgs{Thread: root.Seq}) // delivers inThread, staged
		if _, _, err := edit(a, deskmcp.EditMessageArgs{Seq: reply.Seq, Content: "A's reply, fixed"}); err != nil {
			t.Fatal(err)
		}
		// A crash: a new Service over the same store. The edit of a reply in the thread
		// acknowledged the thread's read, not the channel's.
		a2 := connect(t, service(t, st), agentA)
		if r, _ := a2.Read(deskmcp.ReadDeskArgs{Thread: root.Seq}); len(r.Messages) != 0 {
			t.Errorf("after the edit in the thread, its read = %v, want nothing new", seqs(r.Messages))
		}
		r, _ := a2.Read(deskmcp.ReadDeskArgs{})
		if len(r.Messages) != 1 || r.Messages[0].Seq != news.Seq {
			t.Fatalf("the channel's read = %v, want #%d again: nothing acknowledged it", seqs(r.Messages), news.Seq)
		}
		if _, _, err := redact(a2, deskmcp.RedactMessageArgs{Seq: root.Seq}); err != nil {
			t.Fatal(err)
		}
		a3 := connect(t, service(t, st), agentA)
		if r, _ := a3.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 {
			t.Errorf("after the redaction of a root, the channel's read = %v, want nothing new", seqs(r.Messages))
		}
	})
}
