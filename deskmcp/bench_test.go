package deskmcp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// benchRows is the size of the benchmarks' desk: benchdesk's busy channel.
const benchRows = 10_000

// benchStore returns a new store holding benchRows rows of benchdesk's stream on desk.
func benchStore(b *testing.B, open func(testing.TB) (store, func() store)) store {
	b.Helper()
	st, _ := open(b)
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
// common case between two turns, on a desk of 10,000 rows (benchdesk's busy channel), on
// SQLite and, with TRANSCRIPT_PG_DSN set (scripts/pgtest.sh), PostgreSQL, against what any
// host of sharing must do for the same answer:
//
//   - impl=prepare/write, the baseline: the agent's book loaded (one state read), Prepare
//     from its channel state, and the book saved over its version (one state write);
//   - impl=prepare/nowrite: the same without the write, which read_desk with no news does
//     not make either (an acknowledgement that changes nothing is not saved);
//   - impl=server: the MCP server's side of one tools/call of read_desk: the request line
//     written to the server's input, the SDK's decoding, argument validation, the tool
//     (acknowledging the previous read, which changes nothing, then Prepare), the rendered
//     text, the structured content and its validation, and the response line read from
//     its output;
//   - impl=paired: one baseline (with its write) and one server call per iteration,
//     alternating which goes first, reporting server/prepare, the ratio of their summed
//     times, so that both see the same load on a shared machine;
//   - impl=client: the call through the SDK's own client over in-memory transports, both
//     ends of the exchange.
//
// Each checks its answer before timing: nothing new, from a delta, not a restart.
func BenchmarkReadDeskNoNews(b *testing.B) {
	for _, s := range []struct {
		name string
		open func(testing.TB) (store, func() store)
	}{{"sqlite", sqliteStore}, {"postgres", pgStore}} {
		b.Run("store="+s.name, func(b *testing.B) { benchReadDeskNoNews(b, s.open) })
	}
}

func benchReadDeskNoNews(b *testing.B, open func(testing.TB) (store, func() store)) {
	st := benchStore(b, open)
	ctx := context.Background()
	agent := benchdesk.Authors[3]
	channel := transcript.Conversation{Desk: desk}
	if _, err := books.Update(ctx, st, desk, agent, func(bk sharing.Book) (sharing.Book, error) {
		return bk.Put(sharing.Initialized(channel, benchRows))
	}); err != nil {
		b.Fatal(err)
	}
	baseline := func(write bool) {
		book, v, err := st.LoadBook(ctx, desk, agent)
		if err != nil {
			b.Fatal(err)
		}
		state, _, ok := book.Lookup(channel)
		if !ok {
			b.Fatal("no state")
		}
		plan, err := sharing.Prepare(ctx, st.Log(desk), sharing.Query{Desired: channel, Current: channel, State: state, Viewer: agent})
		if err != nil || plan.Reinitialize != 0 || len(plan.Delta.Messages) != 0 {
			b.Fatalf("the baseline's plan: %+v, %v; want an empty delta", plan, err)
		}
		next, err := book.Acknowledge(plan.Delta.Next)
		if err != nil {
			b.Fatal(err)
		}
		if !write {
			return
		}
		if _, err := st.SaveBook(ctx, desk, agent, next, v); err != nil {
			b.Fatal(err)
		}
	}
	// The server's agent is another participant, so that the two books do not meet.
	call := serverPipe(b, service(b, st), benchdesk.Authors[4])
	const readDesk = `{"name":"read_desk","arguments":{}}`
	call(readDesk) // the first read: the view
	if got := call(readDesk); !strings.Contains(got, "Nothing new") || strings.Contains(got, "isError") {
		b.Fatalf("read_desk: %s, want nothing new", got)
	}

	for _, write := range []bool{true, false} {
		name := "impl=prepare/write"
		if !write {
			name = "impl=prepare/nowrite"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				baseline(write)
			}
		})
	}
	b.Run("impl=server", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			call(readDesk)
		}
	})
	b.Run("impl=paired", func(b *testing.B) {
		server, prepare := paired(b, func() { call(readDesk) }, func() { baseline(true) })
		b.ReportMetric(float64(server)/float64(prepare), "server/prepare")
	})
	b.Run("impl=client", func(b *testing.B) {
		a := connect(b, service(b, st), benchdesk.Authors[5])
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

// paired runs f and base once each per iteration of b's loop, alternating which goes
// first, so that both see the same load on a shared machine, and returns their summed
// times.
func paired(b *testing.B, f, base func()) (tf, tbase time.Duration) {
	timeOf := func(g func()) time.Duration { t0 := time.Now(); g(); return time.Since(t0) }
	i := 0
	for b.Loop() {
		if i++; i%2 == 0 {
			tbase += timeOf(base)
			tf += timeOf(f)
		} else {
			tf += timeOf(f)
			tbase += timeOf(base)
		}
	}
	return tf, tbase
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
