package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// turnScript is the README's Python client, run by TestPythonTurn.
const turnScript = "../../examples/python/turn.py"

// python3 returns the python3 command, or skips the test without one, except under
// CI=true, where .ci/run installs it and its absence is a failure.
func python3(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed, and CI=true requires it for the Python client's test (.ci/run installs it)")
		}
		t.Skip("python3 is not installed: the Python client's test skips")
	}
	return p
}

// pyTurn is one run of turn.py.
type pyTurn struct{ stdout, stderr string }

// runTurn runs turn.py against srv with secret and state file, and fails the test unless
// it exits 0.
func runTurn(t *testing.T, py string, srv *serving, secret, state string) pyTurn {
	t.Helper()
	script, err := filepath.Abs(turnScript)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, script, "--url", srv.url, "--desk", "eng", "--token", secret, "--state", state)
	// The service is on loopback: no proxy of the environment's may stand in between.
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost", "PYTHONDONTWRITEBYTECODE=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("turn.py: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	return pyTurn{stdout.String(), stderr.String()}
}

// TestPythonTurn runs the README's Python client (examples/python/turn.py) against serve:
// its first turn answers what is there, its second sees what another participant wrote in
// between, an aside it may not read as an elision, and not its own first reply; a third has
// nothing to answer; after a reinitialization it starts over from the view, and its
// replayed key makes no second reply; and it answers an aside as an aside.
func TestPythonTurn(t *testing.T) {
	py := python3(t)
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		db := newDB(t)
		triageSecret := addTokenInProcess(t, db, "eng", "agent:triage:Triage")
		anaSecret := addTokenInProcess(t, db, "eng", "person:ana:Ana")
		operatorSecret := addTokenInProcess(t, db, "eng", "operator")
		srv := startServe(t, db)
		ana, operator := srv.api(anaSecret), srv.api(operatorSecret)
		state := filepath.Join(t.TempDir(), "triage.json")

		ana.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "Deploy #41 is red"}, nil)
		turn := runTurn(t, py, srv, triageSecret, state)
		if !strings.Contains(turn.stdout, `<message seq="1" kind="person" id="ana" label="Ana">`+"\nDeploy #41 is red\n</message>") {
			t.Errorf("turn 1 does not show Ana's message in its envelope:\n%s", turn.stdout)
		}
		if !strings.Contains(turn.stderr, "replied with #2") {
			t.Fatalf("turn 1 did not reply with #2:\n%s", turn.stderr)
		}
		if s := readStateFile(t, state); s.Watermark != 1 || !slices.Equal(s.Present, []transcript.Sequence{2}) {
			t.Errorf("state after turn 1: %+v, want watermark 1 and its reply #2 present", s)
		}
		var view transcript.Projection
		operator.want(http.StatusOK, "GET", "/v1/desks/eng/view", nil, &view)
		if len(view.Messages) != 2 || view.Messages[1].Author != transcript.Agent("triage", "Triage") || view.Messages[1].Content != "echo: Deploy #41 is red" {
			t.Fatalf("the desk after turn 1: %+v", view.Messages)
		}

		// In between: an aside triage may not read (#3), and a message from Ana (#4).
		operator.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "between us: freeze on Friday", "audience": []string{"person:ana"}}, nil)
		ana.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "Split it in <two>?"}, nil)
		turn = runTurn(t, py, srv, triageSecret, state)
		if !strings.Contains(turn.stdout, `<message seq="4" kind="person" id="ana" label="Ana">`+"\nSplit it in &lt;two&gt;?\n</message>") {
			t.Errorf("turn 2 does not show Ana's new message in its envelope:\n%s", turn.stdout)
		}
		if !strings.Contains(turn.stdout, `<elided from="3" through="3" count="1"`) || strings.Contains(turn.stdout, "freeze") {
			t.Errorf("turn 2 should show the aside as an elision, and nothing of it:\n%s", turn.stdout)
		}
		if strings.Contains(turn.stdout, `seq="2"`) || strings.Contains(turn.stdout, "Deploy") {
			t.Errorf("turn 2 brings back its own first reply, or what turn 1 saw:\n%s", turn.stdout)
		}
		if !strings.Contains(turn.stderr, "replied with #5") {
			t.Fatalf("turn 2 did not reply with #5:\n%s", turn.stderr)
		}
		if s := readStateFile(t, state); s.Watermark != 4 || !slices.Equal(s.Present, []transcript.Sequence{5}) {
			t.Errorf("state after turn 2: %+v, want watermark 4 and its reply #5 present", s)
		}

		turn = runTurn(t, py, srv, triageSecret, state)
		if turn.stdout != "" || !strings.Contains(turn.stderr, "nothing new") {
			t.Errorf("turn 3, with nothing new: stdout %q, stderr %q", turn.stdout, turn.stderr)
		}

		// A state for another conversation: the service says reinitialize, the client reads
		// the view, and its answer to #4 again is a replay of its key, not a second row.
		if err := os.WriteFile(state, []byte(`{"conversation":{"desk":"eng","thread":1},"watermark":0,"present":[]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		turn = runTurn(t, py, srv, triageSecret, state)
		if !strings.Contains(turn.stderr, "reinitialize (conversation_changed)") || !strings.Contains(turn.stdout, "Split it in") || !strings.Contains(turn.stderr, "replied with #5") {
			t.Errorf("turn after a reinitialization:\nstdout:\n%s\nstderr:\n%s", turn.stdout, turn.stderr)
		}
		if s := readStateFile(t, state); s.Conversation != (transcript.Conversation{Desk: "eng"}) || s.Watermark != 5 || len(s.Present) != 0 {
			t.Errorf("state after the reinitialization: %+v, want the channel at the head, #5", s)
		}
		operator.want(http.StatusOK, "GET", "/v1/desks/eng/view", nil, &view)
		if view.Head != 5 {
			t.Errorf("the replayed reply made a row: head %d, want 5", view.Head)
		}
		// An aside to triage: the turn shows its readers, and the echo answers it as an
		// aside for the same readers, never in the open channel.
		ana.want(http.StatusCreated, "POST", "/v1/desks/eng/messages", map[string]any{"content": "just you: the runbook is wrong", "audience": []string{"agent:triage"}}, nil)
		turn = runTurn(t, py, srv, triageSecret, state)
		if !strings.Contains(turn.stdout, `<message seq="6" kind="person" id="ana" label="Ana" readers="person:ana,agent:triage">`) || !strings.Contains(turn.stderr, "replied with #7") {
			t.Errorf("turn on an aside:\nstdout:\n%s\nstderr:\n%s", turn.stdout, turn.stderr)
		}
		var thread transcript.Projection
		operator.want(http.StatusOK, "GET", "/v1/desks/eng/view?thread=6", nil, &thread)
		if n := len(thread.Messages); n != 2 || thread.Messages[1].Parent != 6 || len(thread.Messages[1].Audience) == 0 {
			t.Errorf("the echo of an aside: %+v, want a reply to #6 for its readers", thread.Messages)
		}
		if code := srv.stop(); code != exitOK {
			t.Errorf("serve: exit %d:\n%s", code, srv.stderr)
		}
	})
}
