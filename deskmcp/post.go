package deskmcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/posting"
	"github.com/sharedesk/transcript/render"
)

// postMessage is the post_message tool: it appends the message as the participant, then
// acknowledges the participant's staged read of the conversation the message is in (the
// channel for a root; for a reply, the thread of its parent, or, when the parent is itself
// a reply, of the parent's parent: its root for a reply to a thread's reply; deeper replies
// are in no conversation, and acknowledge nothing).
//
// posting.Prepare checks the message before the store is asked, so that every refusal is
// precise and safe (postError): the parent must be a row the participant may read
// (ErrNoParent otherwise, the same for a parent that does not exist).
func (t *tools) postMessage(ctx context.Context, in PostMessageArgs) (string, transcript.Message, error) {
	req := posting.Request{Content: in.Content, Parent: in.Parent, Key: in.Key}
	if in.Audience != nil {
		req.Audience = make([]posting.Entry, len(in.Audience))
		for i, entry := range in.Audience {
			p, err := transcript.ParseAuthor(entry)
			req.Audience[i] = posting.Entry{Author: p, Err: err}
		}
	}
	m, parent, err := posting.Prepare(ctx, t.svc.st.Log(t.desk), t.me, req)
	if err != nil {
		return "", transcript.Message{}, t.postError(ctx, m, err)
	}
	c := transcript.Conversation{Desk: t.desk}
	if parent != nil {
		c.Thread = parent.Seq
		if !parent.IsRoot() {
			c.Thread = parent.Parent
		}
	}
	// The append is not the client's to cancel: once begun it finishes.
	stored, created, err := t.svc.st.AppendNew(context.WithoutCancel(ctx), t.desk, m)
	if err != nil {
		err = posting.Refusal(m, err)
		return "", transcript.Message{}, t.postError(ctx, m, err)
	}
	if created && t.svc.opts.Appended != nil {
		t.svc.opts.Appended(t.desk, stored)
	}
	t.acknowledgeWrite(ctx, c)
	return fmt.Sprintf("Posted #%d in %s.\n%s", stored.Seq, render.ConversationName(c), render.Envelope(stored)), stored, nil
}

// acknowledgeWrite commits the participant's staged read of c, if any, after a write of
// its own there: the participant acted on what it read. The write is stored whatever
// happens here: a failure leaves the read staged, to be acknowledged by the next read or
// write, or delivered again, and is logged.
func (t *tools) acknowledgeWrite(ctx context.Context, c transcript.Conversation) {
	k := keyOf(t.me, c)
	unlock := t.svc.staging.lock(k)
	_, _, err := t.commitStaged(context.WithoutCancel(ctx), k)
	unlock()
	if err != nil {
		t.svc.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "acknowledgement not saved",
			slog.String("desk", t.desk), slog.String("as", t.me.String()), slog.String("error", err.Error()))
	}
}

// postError is the tool error for err, a refusal of m (a *posting.Error) by its kind, or
// the store's failure.
func (t *tools) postError(ctx context.Context, m transcript.Message, err error) error {
	var refusal *posting.Error
	if !errors.As(err, &refusal) {
		return t.unavailable(ctx, "post_message", err)
	}
	switch refusal.Kind {
	case posting.NoParent:
		return parentError(m.Parent)
	case posting.InvalidAudience, posting.InvalidEntry:
		return refuse(ErrBadAudience, ": %s", refusal.Reason)
	}
	return refuse(ErrBadMessage, ": %s", refusal.Reason)
}

// threadError and parentError name the seq the caller gave, and nothing of any row.
func threadError(seq transcript.Sequence) error {
	return refuse(ErrNoThread, " %d: no thread with that root that you can read (list_threads lists them)", seq)
}

func parentError(seq transcript.Sequence) error {
	return refuse(ErrNoParent, " %d: no message with that seq that you can read", seq)
}
