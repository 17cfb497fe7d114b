package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/digestflag"
	"github.com/sharedesk/transcript/render"
)

// maxFolds is the most generations one run of digest stores: a larger backlog folds over
// several runs.
const maxFolds = 500

func runDigest(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "digest", "[flags]", `
Fold a desk's older history into its digest now, and print the digest: bounded text that
stands for the messages before a view's window, folded only from the messages every
participant may read (never an aside, an edit's old words or a redacted row), so one digest
serves every viewer. The channel's digest is folded, or with --thread the thread's (its
root's direct replies). The newest 30 messages stay out of it, for the views; a fold comes
once 20 more have come in, and a backlog folds over several generations in one run, each
adding at most 200 messages. view --digest shows the digest above the window.

--digester extractive (the default) writes an outline with no model: each message's header
and first line, newest last. --digester openai asks a model over the Chat Completions API of
OpenAI or of any server that speaks it (vLLM, Ollama: --base-url), with the key in
OPENAI_API_KEY, which is sent to that endpoint and nowhere else. A digester that fails,
or has not answered within --digest-timeout, leaves the digest as it was; once a message it
would send is edited or redacted, it sends nothing more, retries included.

Formats: text, the block view --digest begins with; json, the digest's fields (null when the
conversation has none yet); openai and anthropic, its tag in a user turn.`)
	var df dbflag.Flags
	df.AddReading(fs, "main")
	thread := fs.Uint64("thread", 0, "fold the thread rooted at this `seq` instead of the channel")
	var dg digestflag.Flags
	fs.StringVar(&dg.Name, "digester", "extractive", "the `digester` that writes the digest: extractive or openai")
	fs.StringVar(&dg.Model, "model", "", "with --digester openai: the `model`'s name, such as gpt-4o-mini")
	fs.StringVar(&dg.BaseURL, "base-url", "", "with --digester openai: the endpoint's base `URL`, such as http://localhost:11434/v1; plain http only to a loopback host (default: $OPENAI_BASE_URL, else OpenAI's)")
	fs.DurationVar(&dg.Timeout, "digest-timeout", digest.DefaultTimeout, "with --digester openai: the most one fold may wait for the model's answer, its retries included; past it the run stops and the digest stays as the folds before left it")
	format := fs.String("format", "text", "output `format`: text, json, openai or anthropic")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	d, err := dg.Digester()
	if err != nil {
		return err
	}
	st, err := df.OpenExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	c := transcript.Conversation{Desk: df.Desk, Thread: transcript.Sequence(*thread)}
	if err := df.CheckThread(ctx, st, c.Thread); err != nil {
		return err
	}
	ds, ok := st.Log(df.Desk).(digest.Store)
	if !ok {
		return errors.New("digest: this store keeps no digests")
	}
	held, folds, err := digest.FoldBacklog(ctx, ds, d, digest.Policy{}, c, maxFolds)
	if err != nil {
		return &actionError{action: "fold " + render.ConversationName(c), err: errors.New(foldReason(err, c, d, dg.Timeout, folds))}
	}
	fmt.Fprintln(e.stderr, foldNote(c, held, folds))
	if held.Generation == 0 {
		return writeView(e, *format, transcript.Operator(), render.View{}, nil)
	}
	return writeView(e, *format, transcript.Operator(), render.View{Digest: &held}, held)
}

// foldReason words err, the failure of a fold of c by d, given timeout, after folds
// generations were stored: from the fields of digest's errors, never the key.
func foldReason(err error, c transcript.Conversation, d digest.Named, timeout time.Duration, folds int) string {
	stays := "; the digest stays as it was"
	if folds > 0 {
		stays = fmt.Sprintf("; the digest stays as the %d folds before it left it", folds)
	}
	who := "digester " + d.Name()
	var (
		endpoint *digest.OpenAIError
		refused  *transcript.InvalidError
	)
	switch {
	case errors.Is(err, digest.ErrNoConversation) && c.Thread != 0:
		return fmt.Sprintf("row #%d is not a thread's root: a digest is of the channel or of a root's thread", c.Thread)
	case errors.Is(err, context.Canceled):
		return "interrupted" + stays
	case errors.As(err, &endpoint) && endpoint.Err == nil:
		return fmt.Sprintf("%s: the endpoint answered %d %s%s", who, endpoint.Status, http.StatusText(endpoint.Status), stays)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("%s: no answer within %v (--digest-timeout)%s", who, timeout, stays)
	case errors.As(err, &endpoint):
		return fmt.Sprintf("%s: %v%s", who, endpoint.Err, stays)
	case errors.As(err, &refused) && refused.Kind == digest.ErrRefused:
		return who + ": its text is refused, not cut: " + refused.Reason + stays
	}
	return err.Error()
}

// foldNote says what a run of digest did: how many generations it folded, or why none.
func foldNote(c transcript.Conversation, held transcript.Digest, folds int) string {
	what := "the channel"
	if c.Thread != 0 {
		what = fmt.Sprintf("thread #%d", c.Thread)
	}
	switch {
	case held.Generation == 0:
		return fmt.Sprintf("no digest of %s yet: it holds too few messages every participant may read beyond the newest %d, which stay for the views", what, transcript.SessionWindow)
	case folds == 0:
		return fmt.Sprintf("nothing new to fold in %s: its digest stays at generation %d", what, held.Generation)
	case folds == maxFolds:
		return fmt.Sprintf("folded %s %d times, the most one run folds (run digest again for the rest): generation %d", what, folds, held.Generation)
	case folds == 1:
		return fmt.Sprintf("folded %s once: generation %d", what, held.Generation)
	}
	return fmt.Sprintf("folded %s %d times: generation %d", what, folds, held.Generation)
}
