package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sharing"
)

// reinitError reports a sharing.Plan that asks for a reinitialization: exit code 3.
type reinitError struct{ reason sharing.Reason }

func (e *reinitError) Error() string { return "reinitialization required: " + e.reason.String() }

func runDelta(ctx context.Context, e *env, args []string) error {
	fset := newFlags(e, "delta", "--state FILE [flags]", `
Show what a viewer has not seen since the state saved in FILE: the new messages of its
conversation (the channel, or --thread), in the chosen format. With --commit the next state
is written to FILE (atomically) once the delta is shown; without it, FILE is left as it was
and the same delta shows again.

A missing FILE is a viewer that has seen nothing. When the state cannot give a delta (the
conversation changed, too many rows since, or the watermark is gone) the reason is printed
and the exit code is 3; run again with --init to start over from a full view.

The delta is --as's, as view shows it: asides it may not read become elisions, and the state
file belongs to that viewer (the default viewer is the operator, who reads every aside).`)
	df := deskFlags{standbyReport: standbyWarnings(e.stderr)}
	addDeskFlags(fset, &df, "main")
	addReadDBFlag(fset, &df)
	as := authorFlag{author: transcript.Operator()}
	fset.Var(&as, "as", "the `viewer` whose delta it is: "+authorSyntax)
	statePath := fset.String("state", "", "the viewer's state `file` (JSON)")
	thread := fset.Uint64("thread", 0, "the conversation: the thread rooted at this `seq` (0: the channel)")
	before := fset.Uint64("before", 0, "the turn's bound: the triggering message's `seq` (0: up to the newest)")
	format := fset.String("format", "text", "output `format`: text, json, openai or anthropic")
	commit := fset.Bool("commit", false, "write the next state to the state file")
	initialize := fset.Bool("init", false, "start over: show the full view and (with --commit) save a state at its head")
	if err := parse(fset, args); err != nil {
		return err
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	switch {
	case *statePath == "":
		return usageErrorf("delta needs --state FILE")
	case fset.NArg() != 0:
		return usageErrorf("delta takes no arguments")
	}
	conv := transcript.Conversation{Desk: df.desk, Thread: transcript.Sequence(*thread)}
	st, err := df.openRead(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	log := st.Log(df.desk)

	if *initialize {
		p, err := transcript.Project(ctx, log, transcript.Query{Conversation: conv, Before: transcript.Sequence(*before), Viewer: as.author})
		if err != nil {
			return err
		}
		if p.Messages == nil {
			p.Messages = []transcript.Message{}
		}
		if err := writeMessages(e, *format, as.author, p.Messages, p.Elided, p); err != nil {
			return err
		}
		if !*commit {
			return nil
		}
		watermark := p.Head
		if *before != 0 {
			watermark = transcript.Sequence(*before)
		}
		return writeState(*statePath, sharing.Initialized(conv, watermark))
	}

	state, err := readState(*statePath, conv)
	if err != nil {
		return err
	}
	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: conv, Current: state.Conversation, State: state, Before: transcript.Sequence(*before), Viewer: as.author})
	if err != nil {
		return err
	}
	if plan.Reinitialize != 0 {
		if *format == "json" {
			reason := struct {
				Reinitialize sharing.Reason `json:"reinitialize"`
			}{plan.Reinitialize}
			if err := writeMessages(e, *format, as.author, nil, nil, reason); err != nil {
				return err
			}
		}
		return &reinitError{reason: plan.Reinitialize}
	}
	if plan.Delta.Messages == nil {
		plan.Delta.Messages = []transcript.Message{} // [] rather than null in JSON
	}
	if err := writeMessages(e, *format, as.author, plan.Delta.Messages, plan.Delta.Elided, plan.Delta); err != nil {
		return err
	}
	if *commit {
		return writeState(*statePath, plan.Delta.Next)
	}
	return nil
}

// readState reads a state file; a missing file is a viewer of conv that has seen nothing.
func readState(path string, conv transcript.Conversation) (sharing.State, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return sharing.Initialized(conv, 0), nil
	}
	if err != nil {
		return sharing.State{}, err
	}
	var s sharing.State
	if err := json.Unmarshal(data, &s); err != nil {
		return sharing.State{}, fmt.Errorf("state file %s: %w", path, err)
	}
	return s, nil
}

// writeState replaces the state file atomically: it writes a temporary file beside it, syncs
// it, and renames it over the old one, so a crash leaves either the old state or the new.
func writeState(path string, s sharing.State) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("writing state: %w", err)
	}
	defer os.Remove(f.Name()) // after a successful rename there is nothing left to remove
	if _, err := f.Write(append(data, '\n')); err != nil {
		f.Close()
		return fmt.Errorf("writing state: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing state: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing state: %w", err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("writing state: %w", err)
	}
	return nil
}
