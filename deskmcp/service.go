package deskmcp

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing/books"
)

// Store is what the tools need of a desk's store: sqlitestore.Store and pgstore.Store are
// ones (and server.Store's are).
//
//   - transcript.Appender stores post_message's messages and edit_message's and
//     redact_message's corrections, and says which are new rows (Options.Appended is told
//     of those only).
//   - transcript.DeskLogs reads one desk's log.
type Store interface {
	transcript.Appender
	transcript.DeskLogs
}

// DefaultMaxAnswerBytes is Options.MaxAnswerBytes's default.
const DefaultMaxAnswerBytes = 8 << 20

// Options configure a Service. The zero value of every field means its default.
type Options struct {
	// MaxAnswerBytes bounds the message content of one tool result, as max_tokens bounds
	// its text: read_desk delivers its oldest new messages within it (at least one) and
	// the rest on the next read; view drops its oldest messages past it (never a thread's
	// root) and says how many. Default DefaultMaxAnswerBytes.
	MaxAnswerBytes int
	// Logger receives the tools' failures (a store that failed, an acknowledgement not
	// saved): never content, never a secret. Nil discards them.
	Logger *slog.Logger
	// Appended, if set, is called with the desk's name and the stored row after every new
	// row post_message, edit_message or redact_message stores, and after a replayed
	// correction (which another process may have committed), before the tool answers, so
	// that a service can wake its event streams at once, and apply a correction to the
	// rows it holds in memory. A replayed post stores nothing and is not told.
	Appended func(desk string, stored transcript.Message)
}

// Service is the MCP tools over one store: a factory of MCP servers, one per
// participant and desk (Server), which share the store, the participants' books and the
// reads staged and not yet acknowledged. One Service serves any number of sessions at
// once; it is safe for concurrent use.
type Service struct {
	st      Store
	books   books.Store
	opts    Options
	staging staging
	cache   *mcp.SchemaCache
	schemas *toolSchemas
	sdkLog  *slog.Logger // the SDK's: opts.Logger's warnings and errors
}

// New returns the tools over st, keeping each participant's read states in bookStore (the
// store itself when it is a books.Store, as sqlitestore and pgstore are).
func New(st Store, bookStore books.Store, opts Options) (*Service, error) {
	switch {
	case st == nil:
		return nil, errors.New("deskmcp: nil store")
	case bookStore == nil:
		return nil, errors.New("deskmcp: nil book store")
	case opts.MaxAnswerBytes < 0:
		return nil, errors.New("deskmcp: negative MaxAnswerBytes")
	}
	opts.MaxAnswerBytes = cmp.Or(opts.MaxAnswerBytes, DefaultMaxAnswerBytes)
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := schemas()
	if err != nil {
		return nil, err
	}
	return &Service{
		st: st, books: bookStore, opts: opts, cache: mcp.NewSchemaCache(), schemas: s,
		sdkLog: slog.New(quieter{opts.Logger.Handler(), slog.LevelWarn}),
	}, nil
}

// Server returns an MCP server whose seven tools act as participant p on desk: p is the
// author of what post_message, edit_message and redact_message append and the viewer of every read, and its read states are
// p's (identity by Kind and ID). The caller decides who p is — the --as flag of transcript
// mcp, the bearer token of /mcp — and nothing a client sends changes it. A desk or
// participant no book can be kept for (books.ValidateOwner) is an error.
//
// The server may be run on one transport (Server.Run: stdio) or connected to many sessions;
// making one is cheap (the schemas are made once per Service), so a stateless HTTP handler
// may make one per request.
func (s *Service) Server(desk string, p transcript.Author) (*mcp.Server, error) {
	if err := books.ValidateOwner(desk, p); err != nil {
		return nil, fmt.Errorf("deskmcp: serving %s on desk %q: %w", p, desk, err)
	}
	t := &tools{svc: s, desk: desk, me: p}
	srv := mcp.NewServer(&mcp.Implementation{Name: "transcript", Title: "transcript desk", Version: "1"}, &mcp.ServerOptions{
		Instructions: instructions(desk, p),
		Logger:       s.sdkLog,
		SchemaCache:  s.cache,
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	t.register(srv)
	return srv, nil
}

// instructions tell a model who it is at the desk and how the tools fit together.
func instructions(desk string, p transcript.Author) string {
	return fmt.Sprintf("You are %s at the shared desk %q: a channel with threads, written by the operator, people, other agents and system notices. "+
		"Every message reaches you in an envelope that names its author and seq; your own messages are those of %s. "+
		"Call read_desk (the channel, or thread=ROOT) for what is new for you there since your last read; "+
		"reading it again, or posting in it with post_message, acknowledges what you read. "+
		"edit_message replaces the content of your own message, redact_message erases a message for good; "+
		"a message you read that changed comes back as a correction naming it (corrects=SEQ). "+
		"view shows a whole conversation without acknowledging anything; list_threads lists the newest threads; "+
		"search_desk finds the messages you may read that hold every word of a query, however old. "+
		"An <elided/> tag stands for messages between others that you may not read.", p, desk, p)
}
