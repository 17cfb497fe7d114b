package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript/deskmcp"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
)

func runMCP(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "mcp", "--desk DESK --as PARTICIPANT [flags]", `
Serve the Model Context Protocol on standard input and output, for one desk and
one participant: an MCP client (a coding assistant, a desktop assistant, an agent
framework) starts it and sits at the desk as --as, with seven tools:

  read_desk       thread?, max_tokens?                          what is new for me there since my last read
  post_message    content, parent?, audience?, key?             post as me
  edit_message    seq, content, key?                            replace my message's content
  redact_message  seq, key?                                     erase a message for good (mine; the operator: any)
  view            thread?, before?, window?, max_tokens?        a view of the channel or a thread
  list_threads    limit?                                        the newest threads I can read
  search_desk     query, thread?, before?, limit?, max_tokens?  the messages I can read that hold every word of query

--as is the author of every post and correction and the viewer of every read: an aside it may not read is
an elision, never its content. Its place in the channel and in each thread is kept in the
database, per participant and conversation, and a read is acknowledged when it reads that
conversation again or posts in it: if the process dies first, the next session delivers
the read again. Errors and failures are logged to standard error, never content. A desk
the database does not hold (most often a typo) is refused, with the list of its desks, unless
--create says it is meant: its first post makes it.`)
	var df dbflag.Flags
	df.AddReading(fs, "main")
	var as authorFlag
	fs.Var(&as, "as", "the `participant` the tools act as: "+authorSyntax)
	df.AddCreate(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if as.author.Kind == 0 {
		return usageErrorf("mcp: --as is required: the participant the tools act as (%s)", authorSyntax)
	}
	st, isNew, err := openAs(ctx, e, df, as.author)
	if err != nil {
		return err
	}
	defer st.Close()
	if isNew {
		fmt.Fprintf(e.stderr, "desk %s is new: it holds no message yet, and its first post makes it\n", console.QuoteIfNeeded(df.Desk))
	}
	svc, err := deskmcp.New(st, st, deskmcp.Options{Logger: slog.New(slog.NewTextHandler(e.stderr, nil))})
	if err != nil {
		return err
	}
	srv, err := svc.Server(df.Desk, as.author)
	if err != nil {
		return usageErrorf("mcp: %v", err)
	}
	err = srv.Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(e.stdin), Writer: nopWriteCloser{e.stdout}})
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // a signal, or the client closed standard input: done
	}
	return err
}

// nopWriteCloser is standard output as the transport's writer, which the transport closes
// when the session ends: the process's own output stays open.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
