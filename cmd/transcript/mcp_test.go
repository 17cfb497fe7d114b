package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/mcptest"
	"github.com/sharedesk/transcript/render"
)

// The MCP tests run `transcript mcp` as an MCP client starts it: the built binary, one
// process per agent session, spoken to over stdio by the SDK's own client.

// mcpDesk is a desk the tests' person writes to directly, and agents reach through
// transcript mcp processes.
type mcpDesk struct {
	t  *testing.T
	db string
	st store
}

// newMCPDesk opens a new SQLite desk.
func newMCPDesk(t *testing.T) *mcpDesk {
	t.Helper()
	return openMCPDesk(t, filepath.Join(t.TempDir(), "desk.db"))
}

// openMCPDesk opens the desk at db (a SQLite file or a postgres:// URL), created if need be.
func openMCPDesk(t *testing.T, db string) *mcpDesk {
	t.Helper()
	st, err := dbflag.Flags{DB: db}.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &mcpDesk{t: t, db: db, st: st}
}

// say appends a row as the person would, through another client.
func (d *mcpDesk) say(m transcript.Message) transcript.Message {
	d.t.Helper()
	stored, err := d.st.Append(context.Background(), "eng", m)
	if err != nil {
		d.t.Fatal(err)
	}
	return stored
}

// mcpProcess is one transcript mcp process and the SDK client's session with it.
type mcpProcess struct {
	*mcptest.Agent
	cmd    *exec.Cmd
	stderr *bytes.Buffer
}

// start starts transcript mcp as participant as and connects to it.
func (d *mcpDesk) start(as string) *mcpProcess {
	d.t.Helper()
	cmd := exec.Command(binary(d.t), "mcp", "--db", d.db, "--desk", "eng", "--as", as)
	p := &mcpProcess{cmd: cmd, stderr: new(bytes.Buffer)}
	cmd.Stderr = p.stderr
	// Registered first, so it runs after the session's close, which waits for the process.
	d.t.Cleanup(func() {
		if d.t.Failed() && p.stderr.Len() > 0 {
			d.t.Logf("transcript mcp --as %s wrote to standard error:\n%s", as, p.stderr)
		}
	})
	p.Agent = mcptest.Connect(d.t, &mcp.CommandTransport{Command: cmd})
	return p
}

// kill kills the process, as a crash would: nothing it held in memory survives. Closing
// the session then reaps it.
func (p *mcpProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.Session.Close()
}

var sameMessages = gocmp.Options{cmpopts.IgnoreFields(transcript.Message{}, "At"), cmpopts.EquateEmpty()}

var (
	mcpAna = transcript.Person("ana", "Ana")
	mcpA   = transcript.Agent("a", "Agent A")
)

// TestMCPOverStdio: two agents, each its own transcript mcp process, and a person. A
// reads, B posts, and A's next read holds exactly B's post in its envelope; A works in two
// threads and the channel, interleaved, and never reinitializes; an aside to A reaches A
// and never B, through any tool.
func TestMCPOverStdio(t *testing.T) {
	t.Parallel()
	d := newMCPDesk(t)
	t1 := d.say(transcript.Message{Author: mcpAna, Content: "thread one"})
	d.say(transcript.Message{Author: mcpAna, Content: "first reply in one", Parent: t1.Seq})
	t2 := d.say(transcript.Message{Author: mcpAna, Content: "thread two"})
	d.say(transcript.Message{Author: mcpAna, Content: "first reply in two", Parent: t2.Seq})
	a, b := d.start("agent:a:Agent A"), d.start("agent:b:Agent B")
	conversations := []transcript.Sequence{0, t1.Seq, t2.Seq}
	for _, th := range conversations {
		if r, _ := a.Read(deskmcp.ReadDeskArgs{Thread: th}); r.Reinitialized != "first_read" {
			t.Fatalf("A's first read of %d = %+v", th, r)
		}
	}
	b.Read(deskmcp.ReadDeskArgs{})

	fromB := b.Post(deskmcp.PostMessageArgs{Content: "B here"})
	r, text := a.Read(deskmcp.ReadDeskArgs{})
	if diff := gocmp.Diff([]transcript.Message{fromB}, r.Messages, sameMessages); diff != "" || r.Reinitialized != "" {
		t.Fatalf("A's read after B's post (-want +got):\n%s", diff)
	}
	if !strings.Contains(text, render.Envelope(fromB)) {
		t.Errorf("A's read does not hold B's post in its envelope:\n%s", text)
	}

	// Interleaved: B and Ana post in the three conversations, A posts in some and reads
	// each in turn; posts in a thread are replies to a root with a first reply already,
	// so they stay out of the channel.
	want := map[transcript.Sequence][]transcript.Message{}
	for step := range 18 {
		th := conversations[step%3]
		switch step % 6 / 2 {
		case 0:
			want[th] = append(want[th], b.Post(deskmcp.PostMessageArgs{Content: fmt.Sprint("B step ", step), Parent: th}))
		case 1:
			want[th] = append(want[th], d.say(transcript.Message{Author: mcpAna, Content: fmt.Sprint("Ana step ", step), Parent: th}))
			a.Post(deskmcp.PostMessageArgs{Content: fmt.Sprint("A step ", step), Parent: th})
		}
		next := conversations[(step+1)%3]
		got, _ := a.Read(deskmcp.ReadDeskArgs{Thread: next})
		if got.Reinitialized != "" {
			t.Fatalf("step %d: A's read of %d reinitialized: %s", step, next, got.Reinitialized)
		}
		if diff := gocmp.Diff(want[next], got.Messages, sameMessages); diff != "" {
			t.Fatalf("step %d: A's read of %d (-want +got):\n%s", step, next, diff)
		}
		want[next] = nil
	}

	// An aside to A.
	const secret = "rotate the key before friday"
	aside := d.say(transcript.Message{Author: mcpAna, Content: secret, Parent: t1.Seq, Audience: []transcript.Author{mcpA}})
	if r, text := a.Read(deskmcp.ReadDeskArgs{Thread: t1.Seq}); !slices.Contains(mcptest.Seqs(r.Messages), aside.Seq) || !strings.Contains(text, secret) {
		t.Errorf("A does not get the aside meant for it: %+v", r)
	}
	var seen []string
	r, text = b.Read(deskmcp.ReadDeskArgs{Thread: t1.Seq})
	seen = append(seen, text, fmt.Sprint(r))
	if len(r.Elided) == 0 {
		t.Errorf("B's read of the thread shows no elision: %+v", r)
	}
	p, text := b.View(deskmcp.ViewArgs{Thread: t1.Seq})
	seen = append(seen, text, fmt.Sprint(p))
	threads, text := b.Threads(deskmcp.ListThreadsArgs{})
	seen = append(seen, text, fmt.Sprint(threads))
	var ignored any
	for _, call := range []struct {
		name string
		args any
	}{
		{"view", deskmcp.ViewArgs{Thread: aside.Seq}},
		{"read_desk", deskmcp.ReadDeskArgs{Thread: aside.Seq}},
		{"post_message", deskmcp.PostMessageArgs{Content: "what key?", Parent: aside.Seq}},
	} {
		text, err := b.Call(call.name, call.args, &ignored)
		if err == nil {
			t.Errorf("B's %s on the aside succeeded: %s", call.name, text)
		}
		seen = append(seen, text)
	}
	for _, s := range seen {
		if strings.Contains(s, "rotate") {
			t.Errorf("B received the aside's content:\n%s", s)
		}
	}
}

// TestMCPOverStdioCrash, on each store: A's process reads B's posts and is killed before A
// posts; a new process gets the same messages again. A then posts, and after the next kill
// they do not come back.
func TestMCPOverStdioCrash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		testMCPOverStdioCrash(t, openMCPDesk(t, newDB(t)))
	})
}

func testMCPOverStdioCrash(t *testing.T, d *mcpDesk) {
	d.say(transcript.Message{Author: mcpAna, Content: "welcome"})
	a := d.start("agent:a")
	a.Read(deskmcp.ReadDeskArgs{})
	a.Read(deskmcp.ReadDeskArgs{})
	b := d.start("agent:b")
	news := []transcript.Message{b.Post(deskmcp.PostMessageArgs{Content: "one"}), b.Post(deskmcp.PostMessageArgs{Content: "two"})}
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); !slices.Equal(mcptest.Seqs(r.Messages), mcptest.Seqs(news)) {
		t.Fatalf("A's read = %v, want %v", mcptest.Seqs(r.Messages), mcptest.Seqs(news))
	}
	a.kill(t)

	a = d.start("agent:a")
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); !slices.Equal(mcptest.Seqs(r.Messages), mcptest.Seqs(news)) || r.Reinitialized != "" {
		t.Fatalf("after the crash, A's read = %+v, want the same %v again", r, mcptest.Seqs(news))
	}
	a.Post(deskmcp.PostMessageArgs{Content: "on it"})
	a.kill(t)

	a = d.start("agent:a")
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Reinitialized != "" {
		t.Errorf("after A posted and crashed, A's read = %+v, want nothing new", r)
	}

	// A client that closes the session (standard input) ends the process: exit 0, and
	// nothing on standard error.
	if err := a.Session.Close(); err != nil {
		t.Errorf("closing the session: %v", err)
	}
	if code := a.cmd.ProcessState.ExitCode(); code != 0 || a.stderr.Len() != 0 {
		t.Errorf("transcript mcp exited %d after its client closed, standard error:\n%s", code, a.stderr)
	}
}

// TestMCPUsage: transcript mcp needs --as, takes no arguments, and does not create a
// database.
func TestMCPUsage(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, tc := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"mcp", "--desk", "eng"}, exitUsage, "--as is required"},
		{[]string{"mcp", "--as", "agent:a", "extra"}, exitUsage, "mcp takes no arguments"},
		{[]string{"mcp", "--as", "robot:r2"}, exitUsage, `"robot:r2" is not agent:ID`},
		{[]string{"mcp", "--as", "agent:a", "--db", "missing.db"}, exitError, "no database at missing.db"},
	} {
		r := c.run(tc.args...)
		if r.code != tc.code || !strings.Contains(r.stderr, tc.stderr) || r.stdout != "" {
			t.Errorf("want exit %d and %q on standard error, got:\n%s", tc.code, tc.stderr, r)
		}
	}
	if fileExists(filepath.Join(c.dir, "transcript.db")) || fileExists(filepath.Join(c.dir, "missing.db")) {
		t.Error("transcript mcp created a database")
	}
}
