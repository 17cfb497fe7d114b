package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/internal/mcptest"
	"github.com/sharedesk/transcript/sqlitestore"
)

// BenchmarkMCPReadDeskStdio measures one read_desk with nothing new, as an MCP client sees
// it: the SDK's client writes the call to the standard input of a transcript mcp process
// (the built command) and reads its answer from its standard output, on a SQLite desk of
// 10,000 rows. A round trip, reported; the server's side of it is deskmcp's
// BenchmarkReadDeskNoNews.
func BenchmarkMCPReadDeskStdio(b *testing.B) {
	db := filepath.Join(b.TempDir(), "desk.db")
	st, err := sqlitestore.Open(context.Background(), db)
	if err != nil {
		b.Fatal(err)
	}
	if err := st.AppendBatch(context.Background(), "eng", benchdesk.NewMessages(10_000)); err != nil {
		b.Fatal(err)
	}
	st.Close()
	a := mcptest.Connect(b, &mcp.CommandTransport{Command: exec.Command(binary(b), "mcp", "--db", db, "--desk", "eng", "--as", "agent:triage:Triage")})
	a.Read(deskmcp.ReadDeskArgs{})
	if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Reinitialized != "" {
		b.Fatalf("read_desk: %+v, want nothing new", r)
	}
	b.ReportAllocs()
	for b.Loop() {
		a.Read(deskmcp.ReadDeskArgs{})
	}
}
