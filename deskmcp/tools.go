package deskmcp

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
)

// tools are one server's seven tools: one participant on one desk.
type tools struct {
	svc  *Service
	desk string
	me   transcript.Author
}

// register adds the tools to srv, with their schemas.
func (t *tools) register(srv *mcp.Server) {
	sc := t.svc.schemas
	addTool(srv, sc.readArgs, &mcp.Tool{
		Name:         "read_desk",
		Title:        "Read what is new",
		Description:  "What is new for you in the channel, or in a thread (thread=ROOT), since your last read there, oldest first: messages in envelopes naming their authors, and elisions for messages you may not read. Your own messages never come back as news. A message you were shown that was edited or redacted since comes back as a correction (corrects=SEQ: the message's new content, or redacted with none). On your first read of a conversation, or when your place there was lost, you get its current view and the reason (reinitialized), after the conversation's digest when it has one: a <digest> that stands for what came before the view. Reading a conversation again, or posting in it, acknowledges the previous read; if you never do, the next session delivers that read again.",
		InputSchema:  sc.readIn,
		OutputSchema: sc.readOut,
		Annotations:  &mcp.ToolAnnotations{OpenWorldHint: ptr(false)},
	}, t.readDesk)
	addTool(srv, sc.postArgs, &mcp.Tool{
		Name:         "post_message",
		Title:        "Post a message",
		Description:  "Post as yourself: a new root in the channel, or with parent=ROOT a reply in that thread; with audience, an aside only those participants (and the operator) read. Posting in a conversation acknowledges your last read of it. Returns the stored message.",
		InputSchema:  sc.postIn,
		OutputSchema: sc.postOut,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)},
	}, t.postMessage)
	addTool(srv, sc.editArgs, &mcp.Tool{
		Name:         "edit_message",
		Title:        "Edit your message",
		Description:  "Replace the content of one of your own messages (seq) with content: everyone who reads it sees the new content, marked revised, and an agent that already read it gets the edit on its next read_desk. Only a message's author may edit it; a redacted message cannot be edited. Editing acknowledges your last read of the message's conversation, as posting there does. Returns the stored edit: a row that corrects seq.",
		InputSchema:  sc.editIn,
		OutputSchema: sc.postOut,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, t.editMessage)
	addTool(srv, sc.redactArgs, &mcp.Tool{
		Name:         "redact_message",
		Title:        "Erase a message",
		Description:  "Erase the content of a message (seq) for good, and of its earlier edits: yours, or, as the operator, anyone's. It keeps its place, marked redacted, with no content; an agent that already read it is told on its next read_desk. It cannot be undone. Redacting acknowledges your last read of the message's conversation, as posting there does. Returns the stored redaction: a row that corrects seq.",
		InputSchema:  sc.redactIn,
		OutputSchema: sc.postOut,
		Annotations:  &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)},
	}, t.redactMessage)
	addTool(srv, sc.viewArgs, &mcp.Tool{
		Name:         "view",
		Title:        "View a conversation",
		Description:  "The channel (every root and its first reply) or a thread (its root and direct replies) as you see it: the newest window messages, oldest first, below before; with digest=true, the conversation's digest before them, when it has one. Changes nothing: no read is acknowledged.",
		InputSchema:  sc.viewIn,
		OutputSchema: sc.viewOut,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, t.view)
	addTool(srv, sc.threadsArgs, &mcp.Tool{
		Name:         "list_threads",
		Title:        "List threads",
		Description:  "The newest threads you can read, newest root first: each root, how many replies you can read, and the newest of them. Pass a root to read_desk or view as thread.",
		InputSchema:  sc.threadsIn,
		OutputSchema: sc.threadsOut,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, t.listThreads)
	addTool(srv, sc.searchArgs, &mcp.Tool{
		Name:         "search_desk",
		Title:        "Search the desk",
		Description:  "Find the messages that hold every word of query, newest first, among those you may read: in the whole desk, every thread included, or with thread=ROOT in that thread (its root and direct replies). Each hit comes in its envelope, as read_desk shows it; an edited message is found by its new words only, a redacted one never. For older hits call again with before=next; next 0 means there are none. Changes nothing: no read is acknowledged.",
		InputSchema:  sc.searchIn,
		OutputSchema: sc.searchOut,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: ptr(false)},
	}, t.searchDesk)
}

// unavailable logs err, a failure of the store, and returns the error the model sees,
// which says nothing of it.
func (t *tools) unavailable(ctx context.Context, tool string, err error) error {
	t.svc.opts.Logger.LogAttrs(ctx, slog.LevelError, "tool failed",
		slog.String("tool", tool), slog.String("desk", t.desk), slog.String("as", t.me.String()), slog.String("error", err.Error()))
	return ErrUnavailable
}

// checkThread returns ErrNoThread when thread names no row t.me can read, or a correction
// (readable.Thread); 0 is the channel, which always exists.
func (t *tools) checkThread(ctx context.Context, tool string, thread transcript.Sequence) error {
	if thread == 0 {
		return nil
	}
	ok, err := readable.Thread(ctx, t.svc.st.Log(t.desk), thread, t.me)
	switch {
	case err != nil:
		return t.unavailable(ctx, tool, err)
	case !ok:
		return threadError(thread)
	}
	return nil
}
