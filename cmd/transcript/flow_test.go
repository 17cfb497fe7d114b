package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// flowDesk is a small desk in the import format: several authors, two threads, a reply to a
// reply, a numeric id, lines without ids and one with a time. Row n of the file becomes Seq n.
const flowDesk = `{"id":"root","author":{"type":"operator"},"content":"Morning all","at":"2026-11-30T09:00:00Z"}
{"id":"deploy","author":{"type":"person","id":"ana","label":"Ana"},"content":"Deploy #41 is red"}
{"id":"x1","author":{"type":"agent","id":"x","label":"X"},"content":"The migration timed out","parent":"deploy"}
{"id":7,"author":{"type":"agent","id":"y","label":"Y"},"content":"Split it in two","parent":"deploy"}
{"author":{"type":"agent","id":"x","label":"X"},"content":"Good idea","parent":"7"}
{"author":{"type":"system","kind":"workflow","label":"CI"},"content":"build #1288 passed"}

{"id":"oncall","author":{"type":"person","id":"bo","label":"Bo"},"content":"Who is on call?"}
{"author":{"type":"agent","id":"y","label":"Y"},"content":"Ana is primary","parent":"oncall"}
`

// The flow desk's views: the channel (roots and first replies) and thread 2 (the root and its
// direct replies; #5 replies to a reply).
var (
	flowChannel = []transcript.Sequence{1, 2, 3, 6, 7, 8}
	flowThread2 = []transcript.Sequence{2, 3, 4}
)

// view --format json writes a transcript.Projection, delta --format json a sharing.Delta
// (sharing.Plan when it asks for a reinitialization).
type (
	projectionJSON = transcript.Projection
	deltaJSON      = sharing.Delta
)

type openAIJSON struct {
	Role    string `json:"role"`
	Name    string `json:"name"`
	Content string `json:"content"`
}

type anthropicJSON struct {
	Role    string `json:"role"`
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

func seqs(msgs []transcript.Message) []transcript.Sequence {
	out := []transcript.Sequence{}
	for _, m := range msgs {
		out = append(out, m.Seq)
	}
	return out
}

// decode decodes out, the command's standard output, into v, failing the test on error.
func decode[T any](t *testing.T, what, out string) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%s: decoding its output: %v\n%s", what, err, clip(out))
	}
	if dec.More() {
		t.Fatalf("%s: more than one JSON value:\n%s", what, clip(out))
	}
	return v
}

func wantSeqs(t *testing.T, what string, got []transcript.Message, want []transcript.Sequence) {
	t.Helper()
	if diff := cmp.Diff(want, seqs(got), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("%s: sequences (-want +got):\n%s", what, diff)
	}
}

func TestImportViewAppendDelta(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		in := c.writeFile("desk.jsonl", []byte(flowDesk))
		if out := c.ok("import", in); out != "imported 8 new messages into desk \"main\" (0 already present)\n" {
			t.Errorf("import says %q, want it to count 8 new messages", out)
		}
		checkViews(t, c)

		if got := c.ok("append", "--as", "agent:x:X", "--parent", "2", "hello", "there"); got != "9\n" {
			t.Fatalf("append printed %q, want its seq 9", got)
		}
		thread := decode[projectionJSON](t, "view --thread 2", c.ok("view", "--thread", "2", "--format", "json"))
		wantSeqs(t, "thread 2 after append", thread.Messages, append(flowThread2, 9))
		if m := thread.Messages[len(thread.Messages)-1]; m.Content != "hello there" || m.Author != transcript.Agent("x", "X") || m.Parent != 2 {
			t.Errorf("appended row reads back as %+v", m)
		}

		checkDelta(t, c)
	})
}

// checkViews checks view on the flow desk in every format.
func checkViews(t *testing.T, c *cli) {
	t.Helper()
	text := c.ok("view", "--as", "agent:y")
	for _, want := range []string{"#1 (operator)\n    Morning all\n", "#3 X (agent:x) ↳ #2\n", "#8 Y (agent:y, you) ↳ #7\n    Ana is primary\n"} {
		if !strings.Contains(text, want) {
			t.Errorf("view --as agent:y does not show %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Split it") || strings.Contains(text, "Good idea") {
		t.Errorf("the channel view shows a thread's interior:\n%s", text)
	}

	p := decode[projectionJSON](t, "view --format json", c.ok("view", "--format", "json"))
	wantSeqs(t, "channel view", p.Messages, flowChannel)
	if p.Head != 8 {
		t.Errorf("channel view head = %d, want 8", p.Head)
	}
	if got := p.Messages[0].At.Format("2006-01-02T15:04:05Z07:00"); got != "2026-11-30T09:00:00Z" {
		t.Errorf("row 1's time reads back as %s, want the imported 2026-11-30T09:00:00Z", got)
	}
	thread := decode[projectionJSON](t, "view --thread 2", c.ok("view", "--thread", "2", "--format", "json"))
	wantSeqs(t, "thread 2", thread.Messages, flowThread2)
	before := decode[projectionJSON](t, "view --before 7", c.ok("view", "--before", "7", "--format", "json"))
	wantSeqs(t, "channel before 7", before.Messages, []transcript.Sequence{1, 2, 3, 6})
	window := decode[projectionJSON](t, "view --window 2", c.ok("view", "--window", "2", "--format", "json"))
	wantSeqs(t, "channel, window 2", window.Messages, []transcript.Sequence{7, 8})

	// OpenAI: one entry per message, the viewer's own as assistant turns, verbatim.
	oa := decode[[]openAIJSON](t, "view --format openai", c.ok("view", "--as", "agent:y:Y", "--format", "openai"))
	wantRoles := []string{"user", "user", "user", "user", "user", "assistant"}
	wantNames := []string{"operator", "person_ana", "agent_x", "system_workflow", "person_bo", ""}
	var roles, names []string
	for i, m := range oa {
		roles, names = append(roles, m.Role), append(names, m.Name)
		if m.Role == "user" && !strings.Contains(m.Content, `<message seq="`) {
			t.Errorf("openai entry %d is not in an envelope: %q", i, m.Content)
		}
	}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("openai roles for agent:y (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantNames, names); diff != "" {
		t.Errorf("openai names for agent:y (-want +got):\n%s", diff)
	}
	if len(oa) == 6 && oa[5].Content != "Ana is primary" {
		t.Errorf("agent:y's own message as an assistant turn is %q, want it verbatim", oa[5].Content)
	}

	// The same messages seen by X in thread 2: X's reply is the assistant turn.
	oa = decode[[]openAIJSON](t, "view --thread 2 --format openai", c.ok("view", "--as", "agent:x", "--thread", "2", "--format", "openai"))
	roles = nil
	for _, m := range oa {
		roles = append(roles, m.Role)
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user"}, roles); diff != "" {
		t.Errorf("openai roles for agent:x in thread 2 (-want +got):\n%s", diff)
	}

	// Anthropic: starts and ends with a user turn, alternates, one text block a turn.
	an := decode[[]anthropicJSON](t, "view --format anthropic", c.ok("view", "--as", "agent:y", "--format", "anthropic"))
	roles = nil
	for i, m := range an {
		roles = append(roles, m.Role)
		if len(m.Content) != 1 || m.Content[0].Type != "text" {
			t.Errorf("anthropic turn %d content is %+v, want one text block", i, m.Content)
		}
	}
	if diff := cmp.Diff([]string{"user", "assistant", "user"}, roles); diff != "" {
		t.Errorf("anthropic roles for agent:y (-want +got):\n%s", diff)
	}
	if len(an) == 3 {
		if got := an[1].Content[0].Text; got != "Ana is primary" {
			t.Errorf("agent:y's own message is %q, want it verbatim", got)
		}
		for _, seq := range []string{"1", "2", "3", "6", "7"} {
			if !strings.Contains(an[0].Content[0].Text, `<message seq="`+seq+`"`) {
				t.Errorf("anthropic user turn does not hold message #%s:\n%s", seq, an[0].Content[0].Text)
			}
		}
	}
	// A viewer with nothing of its own: everything is user-side, one merged turn.
	an = decode[[]anthropicJSON](t, "view --as operator --format anthropic", c.ok("view", "--as", "person:zed", "--format", "anthropic"))
	if len(an) != 1 || an[0].Role != "user" {
		t.Errorf("anthropic for a bystander: %d turns, want one user turn", len(an))
	}
}

// checkDelta runs continuous sharing on the flow desk (after the append of #9) from a state
// file that does not exist yet.
func checkDelta(t *testing.T, c *cli) {
	t.Helper()
	stateDir := c.path("state")
	if err := os.Mkdir(stateDir, 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(stateDir, "y.json")
	delta := func(args ...string) deltaJSON {
		t.Helper()
		args = append([]string{"delta", "--state", state, "--as", "agent:y", "--format", "json"}, args...)
		return decode[deltaJSON](t, strings.Join(args, " "), c.ok(args...))
	}

	// A missing state file is a viewer that has seen nothing; without --commit the same
	// delta shows again and no state is written.
	d := delta()
	wantSeqs(t, "first delta", d.Messages, flowChannel)
	if d.Next.Watermark != 9 {
		t.Errorf("first delta's next watermark = %d, want the head, 9", d.Next.Watermark)
	}
	again := delta()
	if diff := cmp.Diff(d, again); diff != "" {
		t.Errorf("delta without --commit changed (-first +second):\n%s", diff)
	}
	if fileExists(state) {
		t.Fatalf("delta without --commit wrote the state file")
	}
	wantSeqs(t, "first delta, committed", delta("--commit").Messages, flowChannel)
	saved := readStateFile(t, state)
	if want := sharing.Initialized(transcript.Conversation{Desk: "main"}, 9); !cmp.Equal(saved, want, cmp.Comparer(stateEqual)) {
		t.Errorf("committed state = %+v, want %+v", saved, want)
	}
	checkOnlyFile(t, stateDir, "y.json")

	// Nothing new: an empty delta, said in words in text.
	wantSeqs(t, "delta after commit", delta().Messages, nil)
	if out := c.ok("delta", "--state", state, "--as", "agent:y"); out != "nothing new for agent:y since #9\n" {
		t.Errorf("empty text delta printed %q, want it to say there is nothing new", out)
	}

	// A new root shows, alone, until committed.
	c.ok("append", "--as", "agent:x:X", "new", "root") // 10
	wantSeqs(t, "delta after a new root", delta().Messages, []transcript.Sequence{10})
	wantSeqs(t, "delta after a new root, again", delta("--commit").Messages, []transcript.Sequence{10})
	wantSeqs(t, "delta after committing it", delta().Messages, nil)
	checkOnlyFile(t, stateDir, "y.json")

	// Of two replies only the channel's first reply to #10 is new to the channel.
	c.ok("append", "--as", "person:bo:Bo", "--parent", "10", "first reply")       // 11
	c.ok("append", "--as", "person:bo:Bo", "--parent", "2", "deep in the thread") // 12
	d = delta("--commit")
	wantSeqs(t, "delta after two replies", d.Messages, []transcript.Sequence{11})
	if len(d.Messages) == 1 && (d.Messages[0].Content != "first reply" || d.Messages[0].Author != transcript.Person("bo", "Bo")) {
		t.Errorf("delta row is %+v", d.Messages[0])
	}
	if oa := c.ok("delta", "--state", state, "--as", "agent:y", "--format", "openai"); oa != "[]\n" {
		t.Errorf("empty openai delta printed %q, want []", oa)
	}

	// The state is for the channel: a thread delta needs a reinitialization (exit 3), and the
	// state file is left alone even with --commit.
	before, _ := os.ReadFile(state)
	r := c.want(exitReinit, "delta", "--state", state, "--as", "agent:y", "--thread", "2", "--commit")
	if !strings.Contains(r.stderr, "conversation_changed") || r.stdout != "" {
		t.Errorf("thread delta on a channel state: want conversation_changed on stderr only, got:\n%s", r)
	}
	r = c.want(exitReinit, "delta", "--state", state, "--as", "agent:y", "--thread", "2", "--format", "json")
	if plan := decode[map[string]any](t, "delta --format json (reinitialize)", r.stdout); plan["reinitialize"] != "conversation_changed" {
		t.Errorf("json reinitialization = %v, want conversation_changed", plan["reinitialize"])
	}
	if after, _ := os.ReadFile(state); string(after) != string(before) {
		t.Errorf("a reinitialization changed the state file:\n%s\nwas:\n%s", after, before)
	}

	// --init shows the full thread view and saves a state at its head; then deltas work.
	p := decode[projectionJSON](t, "delta --init", c.ok("delta", "--state", state, "--as", "agent:y", "--thread", "2", "--init", "--commit", "--format", "json"))
	wantSeqs(t, "delta --init --thread 2", p.Messages, []transcript.Sequence{2, 3, 4, 9, 12})
	saved = readStateFile(t, state)
	if want := sharing.Initialized(transcript.Conversation{Desk: "main", Thread: 2}, 12); !cmp.Equal(saved, want, cmp.Comparer(stateEqual)) {
		t.Errorf("state after --init --commit = %+v, want %+v", saved, want)
	}
	thread := func(args ...string) deltaJSON {
		t.Helper()
		return delta(append([]string{"--thread", "2"}, args...)...)
	}
	wantSeqs(t, "thread delta after --init", thread().Messages, nil)
	c.ok("append", "--as", "agent:x:X", "--parent", "2", "thread reply")     // 13
	c.ok("append", "--as", "agent:x:X", "channel root")                      // 14
	c.ok("append", "--as", "agent:x:X", "--parent", "3", "reply to a reply") // 15
	wantSeqs(t, "thread delta", thread().Messages, []transcript.Sequence{13})
	wantSeqs(t, "thread delta, committed", thread("--commit").Messages, []transcript.Sequence{13})
	wantSeqs(t, "thread delta after commit", thread().Messages, nil)
	checkOnlyFile(t, stateDir, "y.json")

	// A state file that is not a state is an error, and is left as it is.
	bad := filepath.Join(stateDir, "bad.json")
	os.WriteFile(bad, []byte(`{"conversation":{"desk":"main"},"watermark":3,"present":[2]}`), 0o644)
	r = c.want(exitError, "delta", "--state", bad, "--commit")
	if !strings.Contains(r.stderr, bad) {
		t.Errorf("a bad state file: want its name in the error, got:\n%s", r)
	}
}

func readStateFile(t *testing.T, path string) sharing.State {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var s sharing.State
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("state file %s: %v\n%s", path, err, data)
	}
	return s
}

// stateEqual compares states, a nil and an empty present set alike.
func stateEqual(a, b sharing.State) bool {
	return a.Conversation == b.Conversation && a.Watermark == b.Watermark && slices.Equal(a.Present, b.Present)
}

// checkOnlyFile fails the test unless dir holds exactly the file name: a state file is
// replaced by a rename, and no temporary file is left behind.
func checkOnlyFile(t *testing.T, dir, name string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if diff := cmp.Diff([]string{name}, names); diff != "" {
		t.Errorf("state directory (-want +got):\n%s", diff)
	}
}
