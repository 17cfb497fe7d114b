package deskmcp_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/mcptest"
	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sharing/books"
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
	books.Store
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
type agent = mcptest.Agent

// connect opens a session of p with svc's server over in-memory transports.
func connect(t testing.TB, svc *deskmcp.Service, p transcript.Author) *agent {
	t.Helper()
	srv, err := svc.Server(desk, p)
	if err != nil {
		t.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	return mcptest.Connect(t, ct)
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

var seqs = mcptest.Seqs
