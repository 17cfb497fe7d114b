package deskmcp_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sqlitestore"
)

// The cast of the tests' desk: two agents and a person.
var (
	agentA = transcript.Agent("a", "Agent A")
	agentB = transcript.Agent("b", "Agent B")
	ana    = transcript.Person("ana", "Ana")
)

const desk = "eng"

// store is what the tests need of a store: the tools' Store, the books, and Close.
type store interface {
	deskmcp.Store
	sharing.BookStore
	Close() error
}

// sqliteStore opens a new SQLite store in a test's temporary directory, and returns a func
// that opens it again (another process's handle on the same file).
func sqliteStore(t testing.TB) (store, func() store) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "desk.db")
	open := func() store {
		st, err := sqlitestore.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open
}

// pgStore opens a PostgreSQL store on a database of the test's own (pgtest.Database: it
// skips without a server, and fails under CI=true), and a func that opens it again.
func pgStore(t testing.TB) (store, func() store) {
	t.Helper()
	dsn := pgtest.Database(t, "deskmcp")
	open := func() store {
		st, err := pgstore.Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	return open(), open
}

// service returns a new Service over st: what one process running the tools holds.
func service(t testing.TB, st store) *deskmcp.Service {
	t.Helper()
	svc, err := deskmcp.New(st, st, deskmcp.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

// agent is one MCP session of a participant, through the SDK's own client.
type agent struct {
	t  testing.TB
	cs *mcp.ClientSession
}

// connect opens a session of p with svc's server over in-memory transports.
func connect(t testing.TB, svc *deskmcp.Service, p transcript.Author) *agent {
	t.Helper()
	srv, err := svc.Server(desk, p)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return clientOn(t, ct)
}

// clientOn connects the SDK's client over transport.
func clientOn(t testing.TB, transport mcp.Transport) *agent {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return &agent{t: t, cs: cs}
}

// call calls a tool and returns its text and its structured content decoded into out; a
// tool error is returned as an error holding its text.
func (a *agent) call(name string, args any, out any) (string, error) {
	a.t.Helper()
	res, err := a.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	text := resultText(a.t, res)
	if res.IsError {
		return text, toolError(text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		a.t.Fatalf("%s: structured content: %v", name, err)
	}
	if err := json.Unmarshal(raw, out); err != nil {
		a.t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
	return text, nil
}

type toolError string

func (e toolError) Error() string { return string(e) }

func resultText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	var texts []string
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content %T, want text", c)
		}
		texts = append(texts, tc.Text)
	}
	return strings.Join(texts, "\n")
}

// read calls read_desk and fails the test on a tool error.
func (a *agent) read(args deskmcp.ReadDeskArgs) (deskmcp.ReadDeskResult, string) {
	a.t.Helper()
	var r deskmcp.ReadDeskResult
	text, err := a.call("read_desk", args, &r)
	if err != nil {
		a.t.Fatalf("read_desk %+v: %v", args, err)
	}
	return r, text
}

// post calls post_message and fails the test on a tool error.
func (a *agent) post(args deskmcp.PostMessageArgs) transcript.Message {
	a.t.Helper()
	var m transcript.Message
	if _, err := a.call("post_message", args, &m); err != nil {
		a.t.Fatalf("post_message %+v: %v", args, err)
	}
	return m
}

// appendAs appends a row to the desk directly, as a person or the operator would through
// another client.
func appendAs(t testing.TB, st deskmcp.Store, m transcript.Message) transcript.Message {
	t.Helper()
	stored, err := st.Append(context.Background(), desk, m)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

func seqs(msgs []transcript.Message) []transcript.Sequence {
	out := make([]transcript.Sequence, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}
