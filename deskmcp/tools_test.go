package deskmcp_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/render"
)

// sameMessages compares messages by what a reader sees: seq, parent, author, content,
// audience, key (labels included).
var sameMessages = gocmp.Options{cmpopts.IgnoreFields(transcript.Message{}, "At"), cmpopts.EquateEmpty()}

// TestReadPostRead: two agents and a person on one desk. A reads, B posts, and A's next
// read holds exactly B's post, in its envelope; A's own post never comes back to A, and
// reaches B.
func TestReadPostRead(t *testing.T) {
	st, _ := sqliteStore(t)
	svc := service(t, st)
	hello := appendAs(t, st, transcript.Message{Author: ana, Content: "standup in five"})
	a, b := connect(t, svc, agentA), connect(t, svc, agentB)

	r, text := a.Read(deskmcp.ReadDeskArgs{})
	if r.Reinitialized != "first_read" || !slices.Equal(seqs(r.Messages), []transcript.Sequence{hello.Seq}) || r.Head != hello.Seq {
		t.Fatalf("A's first read = %+v, want first_read with Ana's message and head %d", r, hello.Seq)
	}
	if !strings.Contains(text, render.Envelope(hello)) {
		t.Errorf("A's first read's text lacks Ana's envelope:\n%s", text)
	}
	b.Read(deskmcp.ReadDeskArgs{})
	fromB := b.Post(deskmcp.PostMessageArgs{Content: "B here: <b>on it</b>"})
	if !fromB.Author.Same(agentB) || fromB.Author.Label != agentB.Label || fromB.Content != "B here: <b>on it</b>" {
		t.Fatalf("B's post is stored as %+v", fromB)
	}

	r, text = a.Read(deskmcp.ReadDeskArgs{})
	if diff := gocmp.Diff([]transcript.Message{fromB}, r.Messages, sameMessages); diff != "" || r.Reinitialized != "" || len(r.Elided) != 0 {
		t.Fatalf("A's second read = %+v, want exactly B's post (-want +got):\n%s", r, diff)
	}
	if r.Head != fromB.Seq {
		t.Errorf("A's second read covers up to %d, want %d", r.Head, fromB.Seq)
	}
	if !strings.Contains(text, render.Envelope(fromB)) || strings.Contains(text, "<b>") {
		t.Errorf("A's second read's text does not hold B's post in its envelope, escaped:\n%s", text)
	}

	fromA := a.Post(deskmcp.PostMessageArgs{Content: "thanks B", Parent: fromB.Seq})
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 {
		t.Errorf("A's own reply came back to A: %+v", r)
	}
	if r, _ := b.Read(deskmcp.ReadDeskArgs{}); !slices.Equal(seqs(r.Messages), []transcript.Sequence{fromA.Seq}) {
		t.Errorf("B's read = %v, want A's reply %d (the first reply of B's root)", seqs(r.Messages), fromA.Seq)
	}
	if r, _ := b.Read(deskmcp.ReadDeskArgs{Thread: fromB.Seq}); r.Reinitialized != "first_read" || !slices.Equal(seqs(r.Messages), []transcript.Sequence{fromB.Seq, fromA.Seq}) {
		t.Errorf("B's first read of its thread = %+v, want first_read with [%d %d]", r, fromB.Seq, fromA.Seq)
	}
}

// TestInterleavedConversations: A works in two threads and the channel, interleaved, while
// B and Ana post in all three and A posts in some: every read after the first of each is
// a delta (never a reinitialization) holding exactly what others posted there since A's
// last read, in order.
func TestInterleavedConversations(t *testing.T) {
	st, _ := sqliteStore(t)
	svc := service(t, st)
	a, b := connect(t, svc, agentA), connect(t, svc, agentB)
	t1 := appendAs(t, st, transcript.Message{Author: ana, Content: "thread one"})
	appendAs(t, st, transcript.Message{Author: ana, Content: "first reply in one", Parent: t1.Seq})
	t2 := appendAs(t, st, transcript.Message{Author: ana, Content: "thread two"})
	appendAs(t, st, transcript.Message{Author: ana, Content: "first reply in two", Parent: t2.Seq})
	threads := []transcript.Sequence{0, t1.Seq, t2.Seq}
	for _, th := range threads {
		if r, _ := a.Read(deskmcp.ReadDeskArgs{Thread: th}); r.Reinitialized != "first_read" {
			t.Fatalf("A's first read of %d: %+v", th, r)
		}
	}
	// want[th]: what others posted in th since A's last read there. Posts in a thread are
	// replies to a root that has its first reply already, so they stay out of the channel.
	want := map[transcript.Sequence][]transcript.Message{}
	r := rand.New(rand.NewPCG(13, 13))
	for step := range 120 {
		th := threads[r.IntN(len(threads))]
		switch k := r.IntN(6); {
		case k < 2:
			m := b.Post(deskmcp.PostMessageArgs{Content: fmt.Sprint("B says ", step), Parent: th})
			want[th] = append(want[th], m)
		case k < 3:
			m := appendAs(t, st, transcript.Message{Author: ana, Content: fmt.Sprint("Ana says ", step), Parent: th})
			want[th] = append(want[th], m)
		case k < 4:
			a.Post(deskmcp.PostMessageArgs{Content: fmt.Sprint("A says ", step), Parent: th})
			// A's post acknowledges A's last read there; it is never news to A.
		default:
			got, _ := a.Read(deskmcp.ReadDeskArgs{Thread: th})
			if got.Reinitialized != "" {
				t.Fatalf("step %d: A's read of %d reinitialized (%s)", step, th, got.Reinitialized)
			}
			if diff := gocmp.Diff(want[th], got.Messages, sameMessages); diff != "" {
				t.Fatalf("step %d: A's read of %d (-want +got):\n%s", step, th, diff)
			}
			want[th] = nil
		}
	}
	for _, th := range threads {
		if got, _ := a.Read(deskmcp.ReadDeskArgs{Thread: th}); got.Reinitialized != "" || gocmp.Diff(want[th], got.Messages, sameMessages) != "" {
			t.Errorf("A's last read of %d = %+v, want %v", th, got, seqs(want[th]))
		}
	}
}

// TestAsideNeverReachesOutsider: an aside from Ana to A, and A's reply to it, reach A and
// never B, through any tool: read_desk and view of the channel and of the thread, view of
// the aside as a thread, list_threads, search_desk, a reply to the aside; B gets elisions
// and refusals that say no more than for a row that does not exist, and a search finds
// none of the aside's words.
func TestAsideNeverReachesOutsider(t *testing.T) {
	forEachStore(t, testAsideNeverReachesOutsider)
}

func testAsideNeverReachesOutsider(t *testing.T, st store) {
	svc := service(t, st)
	a, b := connect(t, svc, agentA), connect(t, svc, agentB)
	root := appendAs(t, st, transcript.Message{Author: ana, Content: "incident review"})
	appendAs(t, st, transcript.Message{Author: ana, Content: "timeline below", Parent: root.Seq})
	b.Read(deskmcp.ReadDeskArgs{})
	b.Read(deskmcp.ReadDeskArgs{Thread: root.Seq})
	const secret = "the password is hunter2"
	aside := appendAs(t, st, transcript.Message{Author: ana, Content: secret, Audience: []transcript.Author{agentA}})
	inThread := appendAs(t, st, transcript.Message{Author: ana, Content: secret + " (thread)", Parent: root.Seq, Audience: []transcript.Author{agentA}})
	reply := a.Post(deskmcp.PostMessageArgs{Content: "noted: " + secret, Parent: aside.Seq})
	if len(reply.Audience) != 1 || !reply.Audience[0].Same(ana) {
		t.Fatalf("A's reply to the aside has audience %v, want Ana's (the reply rule)", reply.Audience)
	}

	// A reads all of it.
	if r, text := a.Read(deskmcp.ReadDeskArgs{}); !strings.Contains(text, secret) || !slices.Contains(seqs(r.Messages), aside.Seq) {
		t.Errorf("A does not get the aside: %+v", r)
	}

	// B, through every tool.
	var outputs []string
	keep := func(text string, structured any) {
		outputs = append(outputs, text, fmt.Sprintf("%+v", structured))
	}
	r, text := b.Read(deskmcp.ReadDeskArgs{})
	keep(text, r)
	if len(r.Messages) != 0 || len(r.Elided) != 1 || r.Elided[0].From != aside.Seq || r.Elided[0].Count != 1 {
		t.Errorf("B's read of the channel = %+v, want one elision of the aside", r)
	}
	r, text = b.Read(deskmcp.ReadDeskArgs{Thread: root.Seq})
	keep(text, r)
	if len(r.Messages) != 0 || len(r.Elided) != 1 || r.Elided[0].From != inThread.Seq {
		t.Errorf("B's read of the thread = %+v, want one elision of the aside in it", r)
	}
	// A read under a budget, of news that holds an aside between two rows B may read.
	appendAs(t, st, transcript.Message{Author: ana, Content: "first of three"})
	appendAs(t, st, transcript.Message{Author: ana, Content: secret + " (budget)", Audience: []transcript.Author{agentA}})
	appendAs(t, st, transcript.Message{Author: ana, Content: "third of three"})
	r, text = b.Read(deskmcp.ReadDeskArgs{MaxTokens: 300})
	keep(text, r)
	if len(r.Messages) == 0 {
		t.Errorf("B's budgeted read = %+v, want a message", r)
	}
	for _, args := range []deskmcp.ViewArgs{{}, {Thread: root.Seq}, {Thread: root.Seq, MaxTokens: 400}} {
		var p transcript.Projection
		text, err := b.Call("view", args, &p)
		if err != nil {
			t.Fatalf("B's view %+v: %v", args, err)
		}
		keep(text, p)
		if len(p.Elided) == 0 {
			t.Errorf("B's view %+v shows no elision", args)
		}
	}
	var threads deskmcp.ThreadsResult
	text, err := b.Call("list_threads", deskmcp.ListThreadsArgs{}, &threads)
	if err != nil {
		t.Fatal(err)
	}
	keep(text, threads)
	if len(threads.Threads) != 1 || threads.Threads[0].Root.Seq != root.Seq || threads.Threads[0].Replies != 1 {
		t.Errorf("B's threads = %+v, want the incident thread with the one reply B can read", threads)
	}

	for _, args := range []deskmcp.SearchDeskArgs{
		{Query: "hunter2"}, {Query: "password"}, {Query: "noted"}, {Query: "password", Thread: root.Seq},
		{Query: "hunter2", MaxTokens: 300}, {Query: "three"},
	} {
		var r deskmcp.SearchDeskResult
		text, err := b.Call("search_desk", args, &r)
		keep(text, r)
		switch {
		case err != nil:
			t.Errorf("B's search %+v: %v", args, err)
		case args.Query == "three" && len(r.Messages) != 2:
			t.Errorf("B's search %+v = %v, want the two rows B may read", args, seqs(r.Messages))
		case args.Query != "three" && len(r.Messages) != 0:
			t.Errorf("B's search %+v found %v", args, seqs(r.Messages))
		}
	}

	// Refusals: the aside and a seq that does not exist get the same answer, but for the
	// seq they name.
	missing := reply.Seq + 100
	refusal := func(name string, args func(transcript.Sequence) any) {
		t.Helper()
		var ignored any
		gotAside, errAside := b.Call(name, args(aside.Seq), &ignored)
		gotMissing, errMissing := b.Call(name, args(missing), &ignored)
		keep(gotAside, nil)
		if errAside == nil || errMissing == nil {
			t.Errorf("%s of the aside (%v) or of a missing row (%v) is not a tool error", name, errAside, errMissing)
			return
		}
		if strings.ReplaceAll(gotAside, fmt.Sprint(aside.Seq), "N") != strings.ReplaceAll(gotMissing, fmt.Sprint(missing), "N") {
			t.Errorf("%s refuses the aside otherwise than a missing row:\n%s\n%s", name, gotAside, gotMissing)
		}
	}
	refusal("read_desk", func(s transcript.Sequence) any { return deskmcp.ReadDeskArgs{Thread: s} })
	refusal("view", func(s transcript.Sequence) any { return deskmcp.ViewArgs{Thread: s} })
	refusal("search_desk", func(s transcript.Sequence) any { return deskmcp.SearchDeskArgs{Query: "password", Thread: s} })
	refusal("post_message", func(s transcript.Sequence) any { return deskmcp.PostMessageArgs{Content: "let me in", Parent: s} })
	refusal("edit_message", func(s transcript.Sequence) any { return deskmcp.EditMessageArgs{Seq: s, Content: "let me in"} })
	refusal("redact_message", func(s transcript.Sequence) any { return deskmcp.RedactMessageArgs{Seq: s} })

	for _, out := range outputs {
		if strings.Contains(out, "hunter2") || strings.Contains(out, "noted") {
			t.Errorf("B received aside content:\n%s", out)
		}
	}
}

// TestToolErrors checks the refusals of bad arguments: each is a tool error that names
// the problem, and none writes anything.
func TestToolErrors(t *testing.T) {
	st, _ := sqliteStore(t)
	svc := service(t, st)
	a := connect(t, svc, agentA)
	root := appendAs(t, st, transcript.Message{Author: ana, Content: "hi"})
	for _, c := range []struct {
		name string
		args any
		want string
	}{
		{"read_desk", deskmcp.ReadDeskArgs{Thread: 99}, "no such thread 99"},
		{"read_desk", map[string]any{"thread": -1}, "thread"},
		{"read_desk", map[string]any{"max_tokens": -5}, "max_tokens"},
		{"read_desk", map[string]any{"as": "operator"}, "as"},
		{"view", deskmcp.ViewArgs{Thread: 42}, "no such thread 42"},
		{"view", map[string]any{"window": 5000}, "window"},
		{"view", deskmcp.ViewArgs{MaxTokens: 5}, "max_tokens too small"},
		{"list_threads", map[string]any{"limit": 201}, "limit"},
		{"post_message", deskmcp.PostMessageArgs{Content: "x", Parent: 77}, "no such parent 77"},
		{"post_message", deskmcp.PostMessageArgs{Content: "x", Audience: []string{"robot:r2"}}, "bad audience: entry 0 is not a participant"},
		{"post_message", deskmcp.PostMessageArgs{Content: "x", Audience: []string{"agent:a"}}, "bad audience"},
		{"post_message", deskmcp.PostMessageArgs{Content: "x", Audience: []string{"agent:b", "agent:b"}}, "bad audience: audience lists agent:b twice"},
		{"post_message", map[string]any{"content": "x", "audience": []string{}}, "bad audience: an empty audience names no reader: leave the audience out"},
		{"post_message", deskmcp.PostMessageArgs{Content: "x\x00y"}, "NUL"},
		{"post_message", deskmcp.PostMessageArgs{Content: strings.Repeat("x", transcript.MaxContent+1)}, "over the limit"},
		{"post_message", map[string]any{"content": "x", "author": map[string]any{"type": "operator"}}, "author"},
		{"post_message", map[string]any{}, "content"},
		{"post_message", deskmcp.PostMessageArgs{Content: ""}, "bad message: the content is blank"},
		{"post_message", deskmcp.PostMessageArgs{Content: " \n\t "}, "bad message: the content is blank"},
		{"post_message", deskmcp.PostMessageArgs{Content: "  ", Parent: root.Seq}, "bad message: the content is blank"},
		{"search_desk", deskmcp.SearchDeskArgs{Query: "!!"}, "bad query: the text holds no word; give 1 to 16 words"},
	} {
		var ignored any
		text, err := a.Call(c.name, c.args, &ignored)
		if err == nil || !strings.Contains(text, c.want) {
			t.Errorf("%s %+v = %q, %v; want a tool error mentioning %q", c.name, c.args, text, err, c.want)
		}
		for _, pkg := range []string{"deskmcp:", "transcript:", "posting:", "sqlitestore:"} {
			if strings.Contains(text, pkg) {
				t.Errorf("%s %+v = %q, which names the package %s", c.name, c.args, text, pkg)
			}
		}
	}
	keyed := a.Post(deskmcp.PostMessageArgs{Content: "once", Key: "k1"})
	if again := a.Post(deskmcp.PostMessageArgs{Content: "once", Key: "k1"}); again.Seq != keyed.Seq {
		t.Errorf("a replayed key stored a second row: %d, then %d", keyed.Seq, again.Seq)
	}
	var ignored any
	if text, err := a.Call("post_message", deskmcp.PostMessageArgs{Content: "twice", Key: "k1"}, &ignored); err == nil || !strings.Contains(text, "key") {
		t.Errorf("a conflicting key = %q, %v; want a tool error about the key", text, err)
	}
	head := st.Log(desk)
	pg, err := head.ReadBefore(t.Context(), 0, 1)
	if err != nil || len(pg.Messages) != 1 || pg.Messages[0].Seq != keyed.Seq || root.Seq+1 != keyed.Seq {
		t.Errorf("the desk's newest row is %+v (%v), want the keyed post %d: a refused post wrote something", pg.Messages, err, keyed.Seq)
	}
}
