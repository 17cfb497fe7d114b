package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDeltaBeyondTheHead: a state whose watermark, or a --before, lies above the desk's
// newest row (a state file meeting another database, a desk restored from an older backup)
// is a reinitialization (exit 3) that leaves the state file as it was, even with --commit:
// an empty delta committed there would skip every row up to it.
func TestDeltaBeyondTheHead(t *testing.T) {
	c := newCLI(t, "")
	for range 3 {
		c.ok("append", "--create", "--as", "person:ana:Ana", "hello")
	}
	state := c.writeFile("far.json", []byte(`{"conversation":{"desk":"main"},"watermark":9999,"present":[]}`+"\n"))
	near := c.writeFile("near.json", []byte(`{"conversation":{"desk":"main"},"watermark":1,"present":[]}`+"\n"))
	for _, args := range [][]string{
		{"delta", "--state", state, "--commit"},
		{"delta", "--state", near, "--before", "9999", "--commit"},
	} {
		before, _ := os.ReadFile(args[2])
		r := c.want(exitReinit, args...)
		if !strings.Contains(r.stderr, "watermark_unavailable") || !strings.Contains(r.stderr, "--init") {
			t.Errorf("%v: want watermark_unavailable and how to start over on stderr, got:\n%s", args, r)
		}
		if after, _ := os.ReadFile(args[2]); string(after) != string(before) {
			t.Errorf("%v changed the state file to:\n%s\nwas:\n%s", args, after, before)
		}
		r = c.want(exitReinit, append(args, "--format", "json")...)
		if plan := decode[map[string]any](t, "delta --format json beyond the head", r.stdout); plan["reinitialize"] != "watermark_unavailable" {
			t.Errorf("%v --format json: %s, want reinitialize watermark_unavailable", args, r.stdout)
		}
	}
}

// TestDeltaBadStateFile: a state file that is no state names the file, the member that is
// wrong and how to start over, in the JSON's terms: no Go type or field name.
func TestDeltaBadStateFile(t *testing.T) {
	c := newCLI(t, "")
	c.ok("append", "--create", "--as", "person:ana:Ana", "hello")
	for _, tt := range []struct{ state, want string }{
		{`{"conversation":{"desk":"main"},"watermark":-4,"present":[]}`, `"watermark": number -4, want a whole number, 0 or more`},
		{`{"conversation":{"desk":7},"watermark":1}`, `"conversation.desk": number, want a string`},
		{`{"conversation":{"desk":"main"},"watermark":3,"present":[2]}`, `"present": entry 2 at or below the watermark 3`},
		{`{"conversation":{"desk":"main"},"watermark":3,`, `not JSON`},
		{`{"conversation":{"desk":"main"},"watermark":1,"viewer":"agent:triage"}`, `"viewer": not a participant: want an object`},
		{`{"conversation":{"desk":"main"},"watermark":1,"viewer":{"type":"agent"}}`, `"viewer": not a participant: agent without id`},
	} {
		path := c.writeFile("bad.json", []byte(tt.state))
		r := c.want(exitError, "delta", "--state", path, "--commit")
		if !strings.Contains(r.stderr, path) || !strings.Contains(r.stderr, tt.want) || !strings.Contains(r.stderr, "--init") {
			t.Errorf("state %s: want the file, %s and --init in the error, got:\n%s", tt.state, tt.want, r)
		}
		for _, internal := range []string{"Go struct", "Go value", "stateJSON", "authorJSON", "transcript.Sequence", "sharing:", ": json: "} {
			if strings.Contains(r.stderr, internal) {
				t.Errorf("state %s: the error shows %q:\n%s", tt.state, internal, r)
			}
		}
		if after, _ := os.ReadFile(path); string(after) != tt.state {
			t.Errorf("a bad state file was changed to %s", after)
		}
	}
}

// TestDeltaConversationChanged: a state bound to another conversation than the one asked
// for names both, on stderr and in JSON, and nothing of the rows: an aside's root is named
// by its seq only. A viewer who may not read that root is refused the thread, as one that
// does not exist, naming nothing of it either.
func TestDeltaConversationChanged(t *testing.T) {
	c := newCLI(t, "")
	c.ok("append", "--create", "--as", "person:ana:Ana", "--to", "agent:triage", "SECRET-ROOT")
	state := c.writeFile("channel.json", []byte(`{"conversation":{"desk":"main"},"watermark":0,"present":[]}`))
	r := c.want(exitError, "delta", "--state", state, "--thread", "1", "--as", "agent:review")
	if out := r.stdout + r.stderr; !strings.Contains(out, "no thread #1 that agent:review may read") || strings.Contains(out, "SECRET") || strings.Contains(out, "triage") {
		t.Errorf("delta of an aside's thread as agent:review: want it refused, naming nothing of the aside, got:\n%s", out)
	}
	r = c.want(exitReinit, "delta", "--state", state, "--thread", "1")
	for _, want := range []string{"conversation_changed", state, `the channel of desk "main"`, `thread #1 of desk "main"`} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("want %q on stderr, got:\n%s", want, r)
		}
	}
	r = c.want(exitReinit, "delta", "--state", state, "--thread", "1", "--format", "json")
	got := decode[map[string]any](t, "delta --format json (conversation_changed)", r.stdout)
	want := map[string]any{
		"reinitialize":       "conversation_changed",
		"conversation":       map[string]any{"desk": "main", "thread": 1.0},
		"state_conversation": map[string]any{"desk": "main"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("json reinitialization (-want +got):\n%s", diff)
	}
	if out := r.stdout + r.stderr; strings.Contains(out, "SECRET") || strings.Contains(out, "triage") {
		t.Errorf("the answer names something of the aside:\n%s", out)
	}
}

// TestDeltaStateOfAnotherViewer: a state file names the viewer it was written for (--init
// and every --commit), and another viewer's delta from it is a reinitialization (exit 3)
// that says whose state it is, shows no row and leaves the file as it was: the review agent
// never skips #41, which triage's state holds as present. Triage itself goes on from it.
func TestDeltaStateOfAnotherViewer(t *testing.T) {
	c := newCLI(t, "")
	for range 40 {
		c.ok("append", "--create", "--as", "person:ana:Ana", "news")
	}
	triage := c.path("triage.json")
	c.ok("delta", "--as", "agent:triage", "--state", triage, "--init", "--commit")
	got := decode[map[string]any](t, "triage's state after --init", c.ok("delta", "--as", "agent:triage", "--state", triage, "--format", "json"))
	if next, _ := got["next"].(map[string]any); !cmp.Equal(next["viewer"], map[string]any{"type": "agent", "id": "triage"}) {
		t.Fatalf("the state --init wrote for agent:triage does not name it: %v", got)
	}
	c.ok("append", "--as", "agent:triage:Triage", "triage's reply") // #41, noted present by its turn
	c.ok("append", "--as", "person:ana:Ana", "#42")
	c.ok("append", "--as", "person:ana:Ana", "#43")
	c.writeFile("triage.json", []byte(`{"conversation":{"desk":"main"},"watermark":40,"present":[41],"viewer":{"type":"agent","id":"triage"}}`+"\n"))
	before, _ := os.ReadFile(triage)

	r := c.want(exitReinit, "delta", "--as", "agent:review", "--state", triage, "--commit")
	for _, want := range []string{"conversation_changed", "the state in " + triage + " is agent:triage's, not agent:review's", "--init"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("review's delta from triage's state: want %q on stderr, got:\n%s", want, r)
		}
	}
	if strings.Contains(r.stderr, "the channel") || strings.Contains(r.stdout, "#4") {
		t.Errorf("review's delta from triage's state names a conversation or shows rows:\n%s", r)
	}
	r = c.want(exitReinit, "delta", "--as", "agent:review", "--state", triage, "--format", "json")
	want := map[string]any{"reinitialize": "conversation_changed", "state_viewer": map[string]any{"type": "agent", "id": "triage"}}
	if diff := cmp.Diff(want, decode[map[string]any](t, "review's delta --format json", r.stdout)); diff != "" {
		t.Errorf("json reinitialization (-want +got):\n%s", diff)
	}
	if after, _ := os.ReadFile(triage); string(after) != string(before) {
		t.Errorf("review's delta changed triage's state file to:\n%s", after)
	}

	// Under another label, triage is still triage: #42 and #43, not its own #41.
	out := c.ok("delta", "--as", "agent:triage:Triage (renamed)", "--state", triage, "--commit")
	if !strings.Contains(out, "#42") || !strings.Contains(out, "#43") || strings.Contains(out, "#41") {
		t.Errorf("triage's delta from its own state: want #42 and #43 only, got:\n%s", out)
	}
	if data, _ := os.ReadFile(triage); !strings.Contains(string(data), `"id": "triage"`) || strings.Contains(string(data), "renamed") {
		t.Errorf("the committed state does not name triage by identity alone:\n%s", data)
	}

	// A state that names no viewer (written before states named one) is taken as it is.
	anyones := c.writeFile("old.json", []byte(`{"conversation":{"desk":"main"},"watermark":42,"present":[]}`))
	if out := c.ok("delta", "--as", "agent:review", "--state", anyones); !strings.Contains(out, "#43") {
		t.Errorf("review's delta from a state without a viewer: want #43, got:\n%s", out)
	}
}
