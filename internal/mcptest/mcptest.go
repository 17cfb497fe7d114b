// Package mcptest drives the desk's MCP tools (package deskmcp) through the official SDK's
// own client, as any agent would, for the tests of deskmcp, the command (over stdio) and
// the service (over streamable HTTP).
package mcptest

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
)

// Agent is one MCP session, through the SDK's client. Its methods fail the test on a
// protocol error, and on a result whose structured content breaks the output schema the
// server's tool list gives for its tool.
type Agent struct {
	t       testing.TB
	Session *mcp.ClientSession
	outputs map[string]*jsonschema.Resolved // by tool name
}

// Connect opens a session over transport, closed when the test ends, and reads the
// server's tools' output schemas.
func Connect(t testing.TB, transport mcp.Transport) *Agent {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-agent", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	a := &Agent{t: t, Session: cs, outputs: map[string]*jsonschema.Resolved{}}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	for _, tool := range tools.Tools {
		if tool.OutputSchema == nil {
			continue
		}
		raw, err := json.Marshal(tool.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema jsonschema.Schema
		if err := json.Unmarshal(raw, &schema); err != nil {
			t.Fatalf("%s's output schema: %v", tool.Name, err)
		}
		if a.outputs[tool.Name], err = schema.Resolve(nil); err != nil {
			t.Fatalf("%s's output schema: %v", tool.Name, err)
		}
	}
	return a
}

// On returns a's session reporting to t: a fuzz target opens its sessions once and asks
// them with each input's t.
func (a *Agent) On(t testing.TB) *Agent {
	b := *a
	b.t = t
	return &b
}

// ToolError is a tool's refusal: the text of a result with isError set.
type ToolError string

func (e ToolError) Error() string { return string(e) }

// Call calls a tool and returns its text and its structured content decoded into out. A
// tool error is returned as a ToolError holding its text (and the text).
func (a *Agent) Call(name string, args any, out any) (string, error) {
	a.t.Helper()
	res, err := a.Session.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		a.t.Fatalf("%s: %v", name, err)
	}
	text := Text(a.t, res)
	if res.IsError {
		return text, ToolError(text)
	}
	raw, err := json.Marshal(res.StructuredContent)
	if err != nil {
		a.t.Fatalf("%s: structured content: %v", name, err)
	}
	if schema := a.outputs[name]; schema != nil {
		var instance any
		if err := json.Unmarshal(raw, &instance); err != nil {
			a.t.Fatal(err)
		}
		if err := schema.Validate(instance); err != nil {
			a.t.Fatalf("%s: the structured content breaks the output schema: %v\n%s", name, err, raw)
		}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		a.t.Fatalf("%s: structured content %s: %v", name, raw, err)
	}
	return text, nil
}

// Text returns a result's text content, its parts joined by newlines; any other content
// fails the test.
func Text(t testing.TB, res *mcp.CallToolResult) string {
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

// Read calls read_desk; a tool error fails the test.
func (a *Agent) Read(args deskmcp.ReadDeskArgs) (deskmcp.ReadDeskResult, string) {
	a.t.Helper()
	var r deskmcp.ReadDeskResult
	text, err := a.Call("read_desk", args, &r)
	if err != nil {
		a.t.Fatalf("read_desk %+v: %v", args, err)
	}
	return r, text
}

// Post calls post_message; a tool error fails the test.
func (a *Agent) Post(args deskmcp.PostMessageArgs) transcript.Message {
	a.t.Helper()
	var m transcript.Message
	if _, err := a.Call("post_message", args, &m); err != nil {
		a.t.Fatalf("post_message %+v: %v", args, err)
	}
	return m
}

// View calls view; a tool error fails the test.
func (a *Agent) View(args deskmcp.ViewArgs) (transcript.Projection, string) {
	a.t.Helper()
	var p transcript.Projection
	text, err := a.Call("view", args, &p)
	if err != nil {
		a.t.Fatalf("view %+v: %v", args, err)
	}
	return p, text
}

// Threads calls list_threads; a tool error fails the test.
func (a *Agent) Threads(args deskmcp.ListThreadsArgs) (deskmcp.ThreadsResult, string) {
	a.t.Helper()
	var r deskmcp.ThreadsResult
	text, err := a.Call("list_threads", args, &r)
	if err != nil {
		a.t.Fatalf("list_threads %+v: %v", args, err)
	}
	return r, text
}

// Search calls search_desk; a tool error fails the test.
func (a *Agent) Search(args deskmcp.SearchDeskArgs) (deskmcp.SearchDeskResult, string) {
	a.t.Helper()
	var r deskmcp.SearchDeskResult
	text, err := a.Call("search_desk", args, &r)
	if err != nil {
		a.t.Fatalf("search_desk: %v", err) // not the arguments: a query is the user's own words
	}
	return r, text
}

// Seqs returns the messages' sequences.
func Seqs(msgs []transcript.Message) []transcript.Sequence {
	out := make([]transcript.Sequence, len(msgs))
	for i, m := range msgs {
		out[i] = m.Seq
	}
	return out
}

// ConnectHTTP opens a session with the streamable HTTP endpoint, sending header (an
// Authorization, say) with every request, as a client configured with headers does.
func ConnectHTTP(t testing.TB, endpoint string, header http.Header) *Agent {
	t.Helper()
	client := &http.Client{Transport: headerTransport{header}}
	return Connect(t, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: client})
}

// headerTransport adds headers to every request.
type headerTransport struct{ header http.Header }

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.header {
		r.Header[k] = v
	}
	return http.DefaultTransport.RoundTrip(r)
}
