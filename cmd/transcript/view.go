package main

import (
	"context"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

func runView(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "view", "[flags]", `
Show what one viewer sees of a desk: the channel view (every root and its first reply) or,
with --thread, one thread (its root and direct replies), newest --window messages. The
viewer's own messages are marked as its own; in the openai and anthropic formats they are
assistant turns and everything else is enveloped user content.

The view is --as's: an aside it may not read is left out, and in its place the view shows an
elision, which names the rows' range, count and readers but nothing of their content (a line
in text, an <elided .../> tag in openai and anthropic, "elided" in json). A --thread whose
root --as may not read is refused, as one that does not exist. The default viewer is the
operator, who reads every aside.

With --digest the view begins with the conversation's digest, when it has one below the
window (transcript digest folds it): bounded text that stands for the older messages every
participant may read. Text shows it as a block naming its range, openai and anthropic as a
<digest ...> tag in the first user turn, json as "digest".`)
	df, as := addViewerFlags(e, fs, "view")
	thread := fs.Uint64("thread", 0, "show the thread rooted at this `seq` instead of the channel")
	before := fs.Uint64("before", 0, "show only messages below this `seq` (0: up to the newest)")
	window := fs.Int("window", transcript.SessionWindow, "how many `messages` to show")
	format := fs.String("format", "text", "output `format`: text, json, openai or anthropic")
	withDigest := fs.Bool("digest", false, "begin with the digest of the messages below the window, when the conversation has one")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	if *window < 1 {
		return usageErrorf("view: --window %d: want at least 1 message", *window)
	}
	st, err := df.OpenThread(ctx, transcript.Sequence(*thread), as.author)
	if err != nil {
		return err
	}
	defer st.Close()
	p, err := transcript.Project(ctx, st.Log(df.Desk), transcript.Query{
		Conversation: transcript.Conversation{Desk: df.Desk, Thread: transcript.Sequence(*thread)},
		Before:       transcript.Sequence(*before),
		Window:       *window,
		Viewer:       as.author,
		Digest:       *withDigest,
	})
	if err != nil {
		return err
	}
	return writeView(e, *format, as.author, render.View{Digest: p.Digest, Messages: p.Messages, Elided: p.Elided}, p)
}
