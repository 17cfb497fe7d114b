package deskmcp

import (
	"context"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// view is the view tool: transcript.Project for the participant, no state change.
func (t *tools) view(ctx context.Context, in ViewArgs) (string, ViewResult, error) {
	c := transcript.Conversation{Desk: t.desk, Thread: in.Thread}
	if err := t.checkThread(ctx, "view", in.Thread); err != nil {
		return "", ViewResult{}, err
	}
	p, err := transcript.Project(ctx, t.svc.st.Log(t.desk), transcript.Query{Conversation: c, Before: in.Before, Window: in.Window, Viewer: t.me, MaxBytes: t.svc.opts.MaxAnswerBytes, Digest: in.Digest})
	if err != nil {
		return "", ViewResult{}, t.unavailable(ctx, "view", err)
	}
	header := func(p transcript.Projection) string { return viewHeader(c, t.me, p) }
	p, text, err := t.fitView(c, p, in.MaxTokens, header)
	if err != nil {
		return "", ViewResult{}, err
	}
	return text, ViewResult{Messages: p.Messages, Head: p.Head, Partial: p.Partial, Scanned: p.Scanned, Elided: p.Elided, Dropped: p.Dropped, Digest: p.Digest}, nil
}

// fitView renders p, a projection of c within the service's byte budget
// (transcript.Query.MaxBytes), under the first line header gives for what it shows and p's
// digest (render.DigestTag, before the first message), after dropping p's oldest messages
// (each with the elisions before it; never a thread's root), when maxTokens > 0, until the
// text fits, saying how many it dropped (and how many the budget did). A digest that leaves
// no room for the newest message is left out (p.Digest nil).
func (t *tools) fitView(c transcript.Conversation, p transcript.Projection, maxTokens int, header func(transcript.Projection) string) (transcript.Projection, string, error) {
	if p.Digest != nil {
		d := *p.Digest
		withDigest := func(p transcript.Projection) string { return header(p) + "\n" + render.DigestTag(d) }
		fitted, text, err := t.fitBlocks(c, p, maxTokens, withDigest)
		if err == nil || maxTokens <= 0 {
			return fitted, text, err
		}
		p.Digest = nil
	}
	return t.fitBlocks(c, p, maxTokens, header)
}

// fitBlocks is fitView with the digest, if any, in header's text.
func (t *tools) fitBlocks(c transcript.Conversation, p transcript.Projection, maxTokens int, header func(transcript.Projection) string) (transcript.Projection, string, error) {
	blocks := render.Blocks(p.Messages, p.Elided...)
	if maxTokens <= 0 {
		return p, joinBlocks(header(p)+droppedNote(p.Dropped, 0), blocks), nil
	}
	pinned := c.Thread != 0 && len(p.Messages) > 0 && p.Messages[0].Seq == c.Thread
	line := func(dropped int) string {
		return header(p.DropOldest(c.Thread, dropped)) + droppedNote(p.Dropped, 0) + droppedNote(dropped, maxTokens)
	}
	dropped, text, ok := newestFirst(blocks, pinned, maxTokens, line)
	if !ok {
		return p, "", refuse(ErrTooFewTokens, ": %d tokens do not hold the newest message of %s", maxTokens, render.ConversationName(c))
	}
	return p.DropOldest(c.Thread, dropped), text, nil
}

// listThreads is the list_threads tool: transcript.ListThreads for the participant.
func (t *tools) listThreads(ctx context.Context, in ListThreadsArgs) (string, ThreadsResult, error) {
	list, err := transcript.ListThreads(ctx, t.svc.st.Log(t.desk), transcript.ThreadQuery{Limit: in.Limit, Viewer: t.me})
	if err != nil {
		return "", ThreadsResult{}, t.unavailable(ctx, "list_threads", err)
	}
	return threadsText(t.desk, t.me, list.Threads, render.Envelope), ThreadsResult{Threads: list.Threads}, nil
}
