package deskmcp

import (
	"context"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/sharing"
	"github.com/sharedesk/transcript/sharing/books"
)

// readDesk is the read_desk tool. Under the lock of the participant's conversation it
// acknowledges the read staged there (the one this call follows), then prepares from the
// state its book then holds: a delta (sharing.Prepare), or, with no state or a Prepare that
// asks for it, the conversation's current view. What it delivers is staged, to be
// acknowledged by the next read or post there; a crash before that forgets it, and the
// next read delivers it again.
func (t *tools) readDesk(ctx context.Context, in ReadDeskArgs) (string, ReadDeskResult, error) {
	c := transcript.Conversation{Desk: t.desk, Thread: in.Thread}
	if err := t.checkThread(ctx, "read_desk", in.Thread); err != nil {
		return "", ReadDeskResult{}, err
	}
	k := keyOf(t.me, c)
	unlock := t.svc.staging.lock(k)
	defer unlock()
	book, err := t.acknowledge(ctx, k)
	if err != nil {
		return "", ReadDeskResult{}, t.unavailable(ctx, "read_desk", err)
	}
	state, why, ok := book.Lookup(c)
	if ok {
		plan, err := sharing.Prepare(ctx, t.svc.st.Log(t.desk), sharing.Query{
			Desired: c, Current: c, State: state, Viewer: t.me, ExceptAuthor: t.me, MaxBytes: t.svc.opts.MaxAnswerBytes,
		})
		if err != nil {
			return "", ReadDeskResult{}, t.unavailable(ctx, "read_desk", err)
		}
		if plan.Reinitialize == 0 {
			return t.deliver(c, k, state, plan.Delta, in.MaxTokens)
		}
		why = plan.Reinitialize
	}
	return t.startOver(ctx, c, k, why, in.MaxTokens)
}

// acknowledge commits k's staged read, if any, into the participant's book (commitStaged)
// and returns the book as then stored; with nothing staged, the book as stored. The caller
// holds k's lock.
func (t *tools) acknowledge(ctx context.Context, k readKey) (sharing.Book, error) {
	b, committed, err := t.commitStaged(ctx, k)
	if err != nil || committed {
		return b, err
	}
	b, _, err = t.svc.books.LoadBook(ctx, t.desk, t.me)
	return b, err
}

// commitStaged commits k's staged read, if any, into the participant's book (books.Update:
// compare-and-swap, joined with what other sessions saved) and returns the book as then
// stored, and whether there was a read to commit; with none, it reads nothing. A read not
// committed stays staged. The caller holds k's lock.
func (t *tools) commitStaged(ctx context.Context, k readKey) (sharing.Book, bool, error) {
	r, ok := t.svc.staging.take(k)
	if !ok {
		return sharing.Book{}, false, nil
	}
	b, err := books.Update(ctx, t.svc.books, t.desk, t.me, r.commit)
	if err != nil {
		t.svc.staging.stage(k, r)
		return sharing.Book{}, false, err
	}
	return b, true, nil
}

// deliver answers a read with d, prepared from state from less the participant's own
// messages, which take none of the service's byte budget, and within it (its oldest
// messages that fit, the rest counted in Remaining); when it does not fit in maxTokens,
// with its oldest messages that do (sharing.Delta.Prefix, whose corrections are those its
// state commits), and stages the state that accepts what was delivered. The text renders
// d's corrections among its messages (render.WithCorrections).
func (t *tools) deliver(c transcript.Conversation, k readKey, from sharing.State, d sharing.Delta, maxTokens int) (string, ReadDeskResult, error) {
	items := render.WithCorrections(d.Messages, d.Corrections)
	blocks := render.Blocks(items, d.Elided...)
	// partOf is the part of d that its kept oldest items are (see chunksAfter).
	partOf := func(kept int) sharing.Delta {
		if kept >= len(items) {
			return d.Prefix(len(d.Messages), from)
		}
		return d.Below(items[kept].Seq, from)
	}
	kept, text := len(items), ""
	if maxTokens > 0 && len(blocks) > 0 { // with nothing new, the header alone is the answer
		line := func(kept int) string {
			part := partOf(kept)
			budget := maxTokens
			if kept >= len(items) {
				budget = 0 // max_tokens held all of d: what is left, the service's byte budget left
			}
			return readHeader(c, t.me, deltaResult(part)) + moreNote(part.Remaining, budget)
		}
		var ok bool
		kept, text, ok = firstThatFit(blocks, maxTokens, line)
		switch {
		case len(items) > 0 && kept == 0:
			return "", ReadDeskResult{}, refuse(ErrTooFewTokens, ": %d tokens do not hold the oldest new message or correction of %s, #%d",
				maxTokens, render.ConversationName(c), items[0].Seq)
		case !ok:
			return "", ReadDeskResult{}, refuse(ErrTooFewTokens, ": %d tokens do not hold what is new in %s", maxTokens, render.ConversationName(c))
		}
	} else {
		text = joinBlocks(readHeader(c, t.me, deltaResult(d))+moreNote(d.Remaining, 0), blocks)
	}
	part := partOf(kept)
	t.svc.staging.stage(k, stagedRead{state: part.Next})
	result := deltaResult(part)
	result.Remaining = part.Remaining
	return text, result, nil
}

// deltaResult is read_desk's structured result for a delta.
func deltaResult(d sharing.Delta) ReadDeskResult {
	return ReadDeskResult{Messages: d.Messages, Elided: d.Elided, Corrections: d.Corrections, Head: d.Next.Watermark}
}

// startOver answers a read that has no state to prepare from, for reason why (0: a first
// read), with the conversation's current view, and stages the state initialized at its
// head, holding the digest the answer gives (if any), to replace the stored one once
// acknowledged.
func (t *tools) startOver(ctx context.Context, c transcript.Conversation, k readKey, why sharing.Reason, maxTokens int) (string, ReadDeskResult, error) {
	p, err := transcript.Project(ctx, t.svc.st.Log(t.desk), transcript.Query{Conversation: c, Viewer: t.me, MaxBytes: t.svc.opts.MaxAnswerBytes, Digest: true})
	if err != nil {
		return "", ReadDeskResult{}, t.unavailable(ctx, "read_desk", err)
	}
	reason := firstRead
	if why != 0 {
		reason = why.String()
	}
	result := func(p transcript.Projection) ReadDeskResult {
		return ReadDeskResult{Messages: p.Messages, Elided: p.Elided, Head: p.Head, Reinitialized: reason, Digest: p.Digest}
	}
	header := func(p transcript.Projection) string { return readHeader(c, t.me, result(p)) }
	p, text, err := t.fitView(c, p, maxTokens, header)
	if err != nil {
		return "", ReadDeskResult{}, err
	}
	t.svc.staging.stage(k, stagedRead{state: sharing.Initialized(c, p.Head).For(t.me).WithDigest(p.Digest), restart: true})
	return text, result(p), nil
}
