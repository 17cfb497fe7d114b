package deskmcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/posting"
	"github.com/sharedesk/transcript/render"
)

// editMessage is the edit_message tool: the participant's edit of row in.Seq.
func (t *tools) editMessage(ctx context.Context, in EditMessageArgs) (string, transcript.Message, error) {
	return t.correct(ctx, "edit_message", posting.Correction{Target: in.Seq, Content: in.Content, Key: in.Key})
}

// redactMessage is the redact_message tool: the participant's redaction of row in.Seq.
func (t *tools) redactMessage(ctx context.Context, in RedactMessageArgs) (string, transcript.Message, error) {
	return t.correct(ctx, "redact_message", posting.Correction{Target: in.Seq, Redact: true, Key: in.Key})
}

// correct appends c, a correction by the participant, as post_message appends a message:
// posting.PrepareCorrection builds it, the store decides it by the correction rule
// (transcript.Message.ResolveCorrection) before it writes anything, and a refusal is the
// tool's error (correctionError). A stored correction acknowledges the participant's staged
// read of the conversation its target is in, as a post there does: the channel for a root,
// its root's thread for a reply.
func (t *tools) correct(ctx context.Context, tool string, c posting.Correction) (string, transcript.Message, error) {
	m, err := posting.PrepareCorrection(t.me, c)
	if err != nil {
		return "", transcript.Message{}, t.correctionError(ctx, tool, m, err)
	}
	// The append is not the client's to cancel: once begun it finishes.
	stored, _, err := t.svc.st.AppendNew(context.WithoutCancel(ctx), t.desk, m)
	if err != nil {
		return "", transcript.Message{}, t.correctionError(ctx, tool, m, err)
	}
	if t.svc.opts.Appended != nil { // a replayed correction too: the streams must erase before the answer
		t.svc.opts.Appended(t.desk, stored)
	}
	what := fmt.Sprintf("Edited #%d: the edit is #%d, shown to everyone who reads #%d.", stored.Corrects, stored.Seq, stored.Corrects)
	switch {
	case c.Redact:
		what = fmt.Sprintf("Redacted #%d: the redaction is #%d, and the content of #%d and of its earlier edits is erased.", stored.Corrects, stored.Seq, stored.Corrects)
	case stored.Redacted: // a replayed edit, which a redaction since erased
		what = fmt.Sprintf("Edited #%d: the edit is #%d, since erased with #%d by a redaction.", stored.Corrects, stored.Seq, stored.Corrects)
	}
	target, ok, err := readable.Row(ctx, t.svc.st.Log(t.desk), stored.Corrects, t.me)
	switch {
	case err != nil: // the correction is stored; the read stays staged
		t.svc.opts.Logger.LogAttrs(ctx, slog.LevelWarn, "acknowledgement not saved",
			slog.String("desk", t.desk), slog.String("as", t.me.String()), slog.String("error", err.Error()))
	case ok:
		t.acknowledgeWrite(ctx, rowConversation(t.desk, target))
	}
	return what + "\n" + render.Envelope(stored), stored, nil
}

// rowConversation is the conversation m is shown in at its level: the channel for a root,
// the thread of its parent for a reply (a deeper reply's parent is no thread's root, so
// no read is ever staged there).
func rowConversation(desk string, m transcript.Message) transcript.Conversation {
	return transcript.Conversation{Desk: desk, Thread: m.Parent}
}

// correctionError is the tool error for err, a refusal of m, a correction (a
// *posting.Error, or the store's refusal, which posting.Refusal words), or the store's
// failure. A target the participant may not read is refused as a missing one, and no
// refusal quotes content.
func (t *tools) correctionError(ctx context.Context, tool string, m transcript.Message, err error) error {
	var refusal *posting.Error
	if !errors.As(err, &refusal) && !errors.As(posting.Refusal(m, err), &refusal) {
		return t.unavailable(ctx, tool, err)
	}
	switch refusal.Kind {
	case posting.NoTarget:
		return messageError(m.Corrects)
	case posting.NotAuthor:
		return refuse(ErrNotAuthor, ": %s", refusal.Reason)
	case posting.Redacted:
		return refuse(ErrRedacted, ": %s", refusal.Reason)
	}
	return refuse(ErrBadMessage, ": %s", refusal.Reason)
}

// messageError names the seq the caller gave, and nothing of any row.
func messageError(seq transcript.Sequence) error {
	return refuse(ErrNoMessage, " %d: no message with that seq that you can read", seq)
}
