package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sharing"
)

// reinitError reports a sharing.Plan that asks for a reinitialization: exit code 3. detail,
// when set, says what the reason is about.
type reinitError struct {
	reason sharing.Reason
	detail string
}

func (e *reinitError) Error() string {
	msg := "reinitialization required: " + e.reason.String()
	if e.detail != "" {
		msg += ": " + e.detail
	}
	if e.reason == sharing.DigestCorrected {
		return msg + "; " + startOverDigest
	}
	return msg + "; " + startOver
}

// startOver says how to leave a state that cannot give a delta behind.
const startOver = "run delta with --init --commit to start over from a full view"

// startOverDigest is startOver for a state that was given a digest: the fresh view carries
// the digest as it stands now.
const startOverDigest = "run delta with --init --digest --commit to start over from a full view and its digest"

func runDelta(ctx context.Context, e *env, args []string) error {
	fset := newFlags(e, "delta", "--state FILE [flags]", `
Show what a viewer has not seen since the state saved in FILE: the new messages of its
conversation (the channel, or --thread), in the chosen format. With --commit the next state
is written to FILE (atomically) once the delta is shown; without it, FILE is left as it was
and the same delta shows again.

A missing FILE is a viewer that has seen nothing. When the state cannot give a delta (the
conversation changed, the state is another viewer's, too many rows since, or the watermark
is gone) the reason is printed and the exit code is 3; run again with --init to start over
from a full view. --init --commit replaces FILE only when it is missing or a state file
(the database named by mistake is refused and left as it is); its --before is at most the
desk's next row, the triggering message still to be written.

The delta is --as's, as view shows it: asides it may not read become elisions, and the state
file belongs to that viewer (the default viewer is the operator, who reads every aside): the
file names it, and another viewer's delta from it starts over. A --thread whose root --as
may not read is refused, as one that does not exist.

With --init --digest the full view begins with the conversation's digest, as view --digest
shows it, and the state saved records it; a delta is news and carries none, and once a
message that digest stands for is edited or redacted the next delta is a reinitialization
(digest_corrected), so that a fresh view gives the digest as it stands then.`)
	df, as := addViewerFlags(e, fset, "delta")
	statePath := fset.String("state", "", "the viewer's state `file` (JSON)")
	thread := fset.Uint64("thread", 0, "the conversation: the thread rooted at this `seq` (0: the channel)")
	before := fset.Uint64("before", 0, "the turn's bound: the triggering message's `seq` (0: up to the newest)")
	format := fset.String("format", "text", "output `format`: text, json, openai or anthropic")
	commit := fset.Bool("commit", false, "write the next state to the state file")
	initialize := fset.Bool("init", false, "start over: show the full view and (with --commit) save a state at its head")
	withDigest := fset.Bool("digest", false, "with --init: begin the full view with the conversation's digest, when it has one")
	if err := parseNoArgs(fset, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	switch {
	case *statePath == "":
		return usageErrorf("delta needs --state FILE")
	case *withDigest && !*initialize:
		return usageErrorf("delta --digest needs --init: a delta is news and carries no digest")
	}
	conv := transcript.Conversation{Desk: df.Desk, Thread: transcript.Sequence(*thread)}
	if *initialize && *commit {
		if err := checkStartOver(*statePath, conv); err != nil {
			return err
		}
	}
	st, err := df.OpenThread(ctx, conv.Thread, as.author)
	if err != nil {
		return err
	}
	defer st.Close()
	log := st.Log(df.Desk)

	if *initialize {
		p, err := transcript.Project(ctx, log, transcript.Query{Conversation: conv, Before: transcript.Sequence(*before), Viewer: as.author, Digest: *withDigest})
		if err != nil {
			return err
		}
		if err := checkInitBound(ctx, log, conv, as.author, p.Head, transcript.Sequence(*before)); err != nil {
			return err
		}
		if err := writeView(e, *format, as.author, render.View{Digest: p.Digest, Messages: p.Messages, Elided: p.Elided}, p); err != nil {
			return err
		}
		if !*commit {
			return nil
		}
		watermark := p.Head
		if *before != 0 {
			watermark = transcript.Sequence(*before)
		}
		return writeState(*statePath, sharing.Initialized(conv, watermark).For(as.author).WithDigest(p.Digest))
	}

	state, err := sharing.ReadStateFile(*statePath, conv)
	if se, ok := errors.AsType[*sharing.StateError](err); ok {
		return badStateFile(*statePath, se)
	} else if err != nil {
		return err
	}
	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: conv, Current: state.Conversation, State: state, Before: transcript.Sequence(*before), Viewer: as.author})
	if err != nil {
		return err
	}
	if plan.Reinitialize != 0 {
		// The service's answer to the same delta, in the same shape: json writes it.
		reinit := server.Reinitialization(plan.Reinitialize, state.Mismatch(conv, as.author))
		if *format == "json" {
			if err := writeJSON(e.stdout, reinit); err != nil {
				return err
			}
		}
		return &reinitError{reason: plan.Reinitialize, detail: reinitDetail(*statePath, reinit, as.author)}
	}
	if *format == "text" && len(plan.Delta.Messages) == 0 && len(plan.Delta.Elided) == 0 && len(plan.Delta.Corrections) == 0 {
		// Said in words, where the other formats have an empty list.
		fmt.Fprintln(e.stdout, nothingNew(as.author, state.Watermark))
	} else if err := writeView(e, *format, as.author, render.View{Messages: render.WithCorrections(plan.Delta.Messages, plan.Delta.Corrections), Elided: plan.Delta.Elided}, plan.Delta); err != nil {
		return err
	}
	if *commit {
		return writeState(*statePath, plan.Delta.Next)
	}
	return nil
}

// checkStartOver refuses, before anything is written, to start over (--init --commit) in
// the file at path unless it is missing or a state file (sharing.ReadStateFile reads it,
// for any conversation or viewer): a mistyped or swapped --state, such as the database
// itself, is left as it is.
func checkStartOver(path string, conv transcript.Conversation) error {
	_, err := sharing.ReadStateFile(path, conv)
	if se, ok := errors.AsType[*sharing.StateError](err); ok {
		return fmt.Errorf("delta --init --commit: --state %s is not a state file (%s), so it is not replaced; name the viewer's state file, or a new one", path, se.Problem)
	} else if err != nil {
		return fmt.Errorf("delta --init --commit: reading --state %s: %w", path, err)
	}
	return nil
}

// checkInitBound refuses the bound before of a start over as viewer, whose view of conv on
// log ends at head, when sharing.Prepare refuses it (WatermarkUnavailable): a bound past the
// log's next row, which as a watermark would pass over rows not yet written. 0 is no bound.
func checkInitBound(ctx context.Context, log transcript.Log, conv transcript.Conversation, viewer transcript.Author, head, before transcript.Sequence) error {
	if before == 0 {
		return nil
	}
	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: conv, Current: conv, State: sharing.Initialized(conv, head).For(viewer), Before: before, Viewer: viewer})
	if err != nil {
		return err
	}
	if plan.Reinitialize == sharing.WatermarkUnavailable {
		return fmt.Errorf("delta --init --before %d: desk %q's next row is #%d, and a bound past it would pass over the rows still to come; give --before %d at most", before, conv.Desk, head+1, head+1)
	}
	return nil
}

// badStateFile says what is wrong with the state file at path, in the JSON's terms (which
// member, and how), and how to start over.
func badStateFile(path string, se *sharing.StateError) error {
	what := se.Problem
	if se.Member != "" {
		what = fmt.Sprintf("%q: %s", se.Member, se.Problem)
	}
	return fmt.Errorf("state file %s: %s; %s", path, what, startOver)
}

// reinitDetail says what r, the reinitialization of the state read from path for viewer
// (server.Reinitialization), is about: for ConversationChanged, the conversation the state
// is bound to and the one asked for, or the viewer the state belongs to and the one asking;
// "" for the other reasons.
func reinitDetail(path string, r server.DeltaResult, viewer transcript.Author) string {
	var details []string
	if r.StateConversation != nil {
		details = append(details, fmt.Sprintf("the state in %s is for %s, not %s", path, render.ConversationName(*r.StateConversation), render.ConversationName(*r.Conversation)))
	}
	if r.StateViewer != nil {
		details = append(details, fmt.Sprintf("the state in %s is %s's, not %s's", path, *r.StateViewer, viewer))
	}
	return strings.Join(details, "; ")
}

// writeState saves s in the state file at path (sharing.WriteStateFile: atomically, so a
// crash leaves either the old state or the new).
func writeState(path string, s sharing.State) error {
	if err := sharing.WriteStateFile(path, s); err != nil {
		return fmt.Errorf("writing state: %w", err)
	}
	return nil
}

// nothingNew says that a delta for viewer holds no message, in the text format.
func nothingNew(viewer transcript.Author, watermark transcript.Sequence) string {
	if watermark == 0 {
		return fmt.Sprintf("nothing new for %s", viewer)
	}
	return fmt.Sprintf("nothing new for %s since #%d", viewer, watermark)
}
