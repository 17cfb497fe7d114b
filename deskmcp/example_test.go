package deskmcp_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/sqlitestore"
)

// An agent joins a desk over MCP: the SDK's client, connected in memory here (a process's
// stdio with transcript mcp, or serve's /mcp, in real use), reads what is new for it.
func Example() {
	ctx := context.Background()
	st, done := exampleStore(ctx)
	defer done()
	st.Append(ctx, "eng", transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "Can someone look at the failing deploy?"})

	session := exampleSession(ctx, st, transcript.Agent("triage", "Triage"))
	defer session.Close()

	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "read_desk", Arguments: map[string]any{}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// Started over in the channel of desk "eng" (first_read): its current view, 1 message; read up to #1; you are agent:triage.
	// <message seq="1" kind="person" id="ana" label="Ana">
	// Can someone look at the failing deploy?
	// </message>
}

// An agent fixes what it posted, then erases it: edit_message and redact_message answer
// with the stored correction, and a view shows the row as it now stands.
func Example_corrections() {
	ctx := context.Background()
	st, done := exampleStore(ctx)
	defer done()
	session := exampleSession(ctx, st, transcript.Agent("triage", "Triage"))
	defer session.Close()

	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"post_message", map[string]any{"content": "Deploy at 22:00."}},
		{"edit_message", map[string]any{"seq": 1, "content": "Deploy at 23:00."}},
		{"view", map[string]any{}},
		{"redact_message", map[string]any{"seq": 1}},
		{"view", map[string]any{}},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// Posted #1 in the channel of desk "eng".
	// <message seq="1" kind="agent" id="triage" label="Triage">
	// Deploy at 22:00.
	// </message>
	// Edited #1: the edit is #2, shown to everyone who reads #1.
	// <message seq="2" corrects="1" kind="agent" id="triage" label="Triage">
	// Deploy at 23:00.
	// </message>
	// The view of the channel of desk "eng": 1 message; newest row #2; you are agent:triage.
	// <message seq="1" kind="agent" id="triage" label="Triage" revised="2">
	// Deploy at 23:00.
	// </message>
	// Redacted #1: the redaction is #3, and the content of #1 and of its earlier edits is erased.
	// <message seq="3" corrects="1" kind="agent" id="triage" label="Triage" redacted="true"/>
	// The view of the channel of desk "eng": 1 message; newest row #3; you are agent:triage.
	// <message seq="1" kind="agent" id="triage" label="Triage" revised="3" redacted="true"/>
}

// exampleStore opens a SQLite store in a new temporary directory; done closes it and
// removes the directory.
func exampleStore(ctx context.Context) (st *sqlitestore.Store, done func()) {
	dir, err := os.MkdirTemp("", "deskmcp-example")
	if err != nil {
		log.Fatal(err)
	}
	st, err = sqlitestore.Open(ctx, filepath.Join(dir, "desk.db"))
	if err != nil {
		log.Fatal(err)
	}
	return st, func() { st.Close(); os.RemoveAll(dir) }
}

// exampleSession serves the tools over st to p on desk eng, and returns the SDK client's
// session with them, connected in memory.
func exampleSession(ctx context.Context, st *sqlitestore.Store, p transcript.Author) *mcp.ClientSession {
	svc, err := deskmcp.New(st, st, deskmcp.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv, err := svc.Server("eng", p)
	if err != nil {
		log.Fatal(err)
	}
	serverSide, clientSide := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, serverSide, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "example-agent", Version: "1"}, nil)
	session, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	return session
}
