package deskmcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/sharing"
)

// benchRows is the size of the benchmarks' desk: benchdesk's busy channel.
const benchRows = 10_000

// benchStore returns a SQLite store holding benchRows rows of benchdesk's stream on desk.
func benchStore(b *testing.B) store {
	b.Helper()
	st, _ := sqliteStore(b)
	msgs := benchdesk.NewMessages(benchRows)
	for len(msgs) > 0 {
		n := min(len(msgs), 1000)
		if err := st.(interface {
			AppendBatch(context.Context, string, []transcript.Message) error
		}).AppendBatch(context.Background(), desk, msgs[:n]); err != nil {
			b.Fatal(err)
		}
		msgs = msgs[n:]
	}
	return st
}

// BenchmarkReadDeskNoNews measures read_desk when nothing is new for the agent, the
// common case between two turns, on a SQLite desk of 10,000 rows, against what any host
// of sharing must do for the same answer:
//
//   - impl=prepare/write, the baseline: the agent's book loaded (one state read), Prepare from
//     its channel state, and the book saved over its version (one state write);
//   - impl=prepare/nowrite: the same without the write, which read_desk with no news does
//     not make either (an acknowledgement that changes nothing is not saved), for a
//     baseline without SQLite's commit;
//   - impl=server: the MCP server's side of one tools/call, read_desk with no arguments: the
//     request line written to the server's input, the SDK's decoding, argument
//     validation, the tool (acknowledging the previous read, which changes nothing, then
//     Prepare), the rendered text, the structured content and its validation, and the
//     response line read from its output;
//   - impl=client: the same call through the SDK's own client over in-memory transports,
//     both ends of the exchange.
//
// Each checks its answer once before timing: nothing new, from a delta, not a restart.
func BenchmarkReadDeskNoNews(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	agent := benchdesk.Authors[3]
	channel := transcript.Conversation{Desk: desk}

	b.Run("impl=prepare", func(b *testing.B) {
		head := transcript.Sequence(benchRows)
		if _, err := sharing.UpdateBook(ctx, st, desk, agent, func(bk sharing.Book) (sharing.Book, error) {
			return bk.Put(sharing.Initialized(channel, head))
		}); err != nil {
			b.Fatal(err)
		}
		once := func(write bool) sharing.Plan {
			book, v, err := st.LoadBook(ctx, desk, agent)
			if err != nil {
				b.Fatal(err)
			}
			state, _, ok := book.Lookup(channel)
			if !ok {
				b.Fatal("no state")
			}
			plan, err := sharing.Prepare(ctx, st.Log(desk), sharing.Query{Desired: channel, Current: channel, State: state, Viewer: agent})
			if err != nil {
				b.Fatal(err)
			}
			next, err := book.Acknowledge(plan.Delta.Next)
			if err != nil {
				b.Fatal(err)
			}
			if !write {
				return plan
			}
			if _, err := st.SaveBook(ctx, desk, agent, next, v); err != nil {
				b.Fatal(err)
			}
			return plan
		}
		if plan := once(true); plan.Reinitialize != 0 || len(plan.Delta.Messages) != 0 {
			b.Fatalf("the baseline's plan: %+v, want an empty delta", plan)
		}
		for _, write := range []bool{true, false} {
			name := "write"
			if !write {
				name = "nowrite"
			}
			b.Run(name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					once(write)
				}
			})
		}
	})

	b.Run("impl=server", func(b *testing.B) {
		call := serverPipe(b, service(b, st), agent)
		call(`{"name":"read_desk","arguments":{}}`) // the first read: the view
		if got := call(`{"name":"read_desk","arguments":{}}`); !strings.Contains(got, "Nothing new") || strings.Contains(got, "isError") {
			b.Fatalf("read_desk: %s, want nothing new", got)
		}
		b.ReportAllocs()
		for b.Loop() {
			call(`{"name":"read_desk","arguments":{}}`)
		}
	})

	b.Run("impl=client", func(b *testing.B) {
		a := connect(b, service(b, st), agent)
		a.Read(deskmcp.ReadDeskArgs{})
		if r, _ := a.Read(deskmcp.ReadDeskArgs{}); len(r.Messages) != 0 || r.Reinitialized != "" {
			b.Fatalf("read_desk: %+v, want nothing new", r)
		}
		b.ReportAllocs()
		for b.Loop() {
			a.Read(deskmcp.ReadDeskArgs{})
		}
	})
}

// serverPipe runs svc's server for p on a pair of pipes, initializes it with raw JSON-RPC
// lines, and returns a func that sends one tools/call with params and returns the
// response's line: the server's side of the protocol, without a client.
func serverPipe(b *testing.B, svc *deskmcp.Service, p transcript.Author) func(params string) string {
	b.Helper()
	srv, err := svc.Server(desk, p)
	if err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ss, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: inR, Writer: outW}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { inW.Close(); ss.Close() })
	lines := bufio.NewReaderSize(outR, 1<<16)
	id := 0
	send := func(line string, reply bool) string {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			b.Fatal(err)
		}
		if !reply {
			return ""
		}
		got, err := lines.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return got
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`, true)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`, false)
	return func(params string) string {
		id++
		return send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`, id, params), true)
	}
}
