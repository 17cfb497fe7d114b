package deskmcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// postMessage is the post_message tool: it appends the message as the participant, then
// acknowledges the participant's staged read of the conversation the message is in (the
// channel for a root; for a reply, the thread of its parent, or, when the parent is itself
// a reply, of the parent's parent: its root for a reply to a thread's reply; deeper replies
// are in no conversation, and acknowledge nothing).
//
// The message is checked before the store is asked, so that every refusal is precise and
// safe: transcript.ValidateNew (the content's size and text among its rules), and the parent, which must
// be a row the participant may read (ErrNoParent otherwise, the same for a parent that
// does not exist). The store applies the reply rule.
func (t *tools) postMessage(ctx context.Context, in PostMessageArgs) (string, transcript.Message, error) {
	m, err := t.newMessage(in)
	if err != nil {
		return "", transcript.Message{}, err
	}
	c := transcript.Conversation{Desk: t.desk}
	if m.Parent != 0 {
		parent, ok, err := transcript.ReadableRow(ctx, t.svc.st.Log(t.desk), m.Parent, t.me)
		switch {
		case err != nil:
			return "", transcript.Message{}, t.unavailable(ctx, "post_message", err)
		case !ok:
			return "", transcript.Message{}, parentError(m.Parent)
		}
		c.Thread = parent.Seq
		if !parent.IsRoot() {
			c.Thread = parent.Parent
		}
	}
	// The append is not the client's to cancel: once begun it finishes.
	stored, created, err := t.svc.st.AppendNew(context.WithoutCancel(ctx), t.desk, m)
	switch {
	case errors.Is(err, transcript.ErrNotReadable), errors.Is(err, transcript.ErrNoParent):
		return "", transcript.Message{}, parentError(m.Parent)
	case errors.Is(err, transcript.ErrInvalidAudience):
		return "", transcript.Message{}, fmt.Errorf("%w: a reply to an aside keeps the aside's readers: leave the audience out to reply to them", ErrBadAudience)
	case errors.Is(err, transcript.ErrTooLarge): // the store's own limit, below transcript.MaxContent
		return "", transcript.Message{}, fmt.Errorf("%w: the content is over the desk's limit", ErrBadMessage)
	case errors.Is(err, transcript.ErrKeyConflict):
		return "", transcript.Message{}, fmt.Errorf("%w: key %q already names a different message of the desk", ErrBadMessage, m.Key)
	case errors.Is(err, transcript.ErrInvalidDesk):
		return "", transcript.Message{}, fmt.Errorf("%w: the desk's name breaks the rule for desk names, so it can be read, not written to", ErrBadMessage)
	case errors.Is(err, transcript.ErrInvalidMessage):
		return "", transcript.Message{}, fmt.Errorf("%w: the desk refused it (text must be valid UTF-8 without NUL bytes)", ErrBadMessage)
	case err != nil:
		return "", transcript.Message{}, t.unavailable(ctx, "post_message", err)
	}
	if created && t.svc.opts.Appended != nil {
		t.svc.opts.Appended(t.desk, stored.Seq)
	}
	k := keyOf(t.me, c)
	unlock := t.svc.staging.lock(k)
	_, _, err = t.commitStaged(context.WithoutCancel(ctx), k)
	unlock()
	if err != nil {
		// The message is stored; the read stays staged and is acknowledged by the next
		// read or post, or delivered again.
		t.svc.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "acknowledgement not saved",
			slog.String("desk", t.desk), slog.String("as", t.me.String()), slog.String("error", err.Error()))
	}
	return fmt.Sprintf("Posted #%d in %s.\n%s", stored.Seq, where(c), render.Envelope(stored)), stored, nil
}

// newMessage is in as a message by the participant, checked as the store would check it.
func (t *tools) newMessage(in PostMessageArgs) (transcript.Message, error) {
	m := transcript.Message{Author: t.me, Content: in.Content, Parent: in.Parent, Key: in.Key}
	if in.Audience != nil && len(in.Audience) == 0 { // "audience": [], not an absent argument
		return transcript.Message{}, fmt.Errorf("%w: an empty audience names no reader: leave the audience out for a message the whole desk reads", ErrBadAudience)
	}
	for i, entry := range in.Audience {
		p, err := transcript.ParseAuthor(entry)
		if err != nil {
			return transcript.Message{}, fmt.Errorf("%w: entry %d is not a participant: operator, person:ID, agent:ID or system:KIND", ErrBadAudience, i)
		}
		m.Audience = append(m.Audience, p)
	}
	if err := transcript.ValidateNew(m); err != nil {
		if errors.Is(err, transcript.ErrInvalidAudience) {
			return transcript.Message{}, fmt.Errorf("%w: %s", ErrBadAudience, transcript.Reason(err))
		}
		return transcript.Message{}, fmt.Errorf("%w: %s", ErrBadMessage, transcript.Reason(err))
	}
	return m, nil
}

// threadError and parentError name the seq the caller gave, and nothing of any row.
func threadError(seq transcript.Sequence) error {
	return fmt.Errorf("%w %d: no thread with that root that you can read (list_threads lists them)", ErrNoThread, seq)
}

func parentError(seq transcript.Sequence) error {
	return fmt.Errorf("%w %d: no message with that seq that you can read", ErrNoParent, seq)
}
