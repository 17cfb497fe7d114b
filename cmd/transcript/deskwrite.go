package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/participants"
	"github.com/sharedesk/transcript/token"
)

// openAs opens df's store for a command that writes to df.Desk as p (append, token add,
// mcp): dbflag.Flags.OpenForDesk, reporting on e's standard error, and then noteUnseen of
// p when the desk is not new.
func openAs(ctx context.Context, e *env, df dbflag.Flags, p transcript.Author) (st store, isNew bool, err error) {
	st, isNew, err = df.WithIndexProgress(e.stderr, e.progress).OpenForDesk(ctx)
	if err == nil && !isNew {
		noteUnseen(ctx, e, st, df.Desk, p)
	}
	return st, isNew, err
}

// unseenScanRows bounds the rows noteUnseen reads of a desk, newest first.
const unseenScanRows = 10_000

// noteUnseen says on e's standard error when p, a participant a command writes as (or
// makes a token for), is one the desk has not seen: not the author or a reader of an
// aside among its newest unseenScanRows rows, nor the participant of a token for it. It
// names the desk's participants of p's kind, so that a typo shows; it is no error: new
// participants are normal. The operator is always known. A failure to read the desk is
// not reported: the command goes on.
func noteUnseen(ctx context.Context, e *env, st store, desk string, p transcript.Author) {
	var known []transcript.Author // the participants of the desk's tokens
	if tokens, err := token.List(ctx, st, desk); err == nil {
		for _, t := range tokens {
			known = append(known, t.Participant)
		}
	}
	absent, ok, _ := participants.Unseen(ctx, st.Log(desk), known, p, unseenScanRows)
	if !ok {
		return
	}
	var names []string // the participants of p's kind
	for _, a := range absent.Kin {
		name := transcript.Author{Kind: a.Kind, ID: a.ID}.String()
		if a.Label != "" {
			name += " (" + a.Label + ")"
		}
		names = append(names, console.QuoteIfNeeded(name))
	}
	slices.Sort(names)
	where := fmt.Sprintf("desk %s", console.QuoteIfNeeded(desk))
	if !absent.All {
		where = fmt.Sprintf("the newest %d rows of desk %s", absent.Read, console.QuoteIfNeeded(desk))
	}
	if len(names) == 0 {
		fmt.Fprintf(e.stderr, "note: %s has not seen %s before, and no %s at all\n", where, participantText(p), kindPlural(p.Kind))
		return
	}
	fmt.Fprintf(e.stderr, "note: %s has not seen %s before; the %s it has seen: %s\n", where, participantText(p), kindPlural(p.Kind), strings.Join(names, ", "))
}

// kindPlural names the participants of kind k, in the plural.
func kindPlural(k transcript.AuthorKind) string {
	switch k {
	case transcript.KindPerson:
		return "people"
	case transcript.KindAgent:
		return "agents"
	case transcript.KindSystem:
		return "system participants"
	}
	return "operators"
}

// noteCreatedDesk says on e's standard error that the command made desk, new.
func noteCreatedDesk(e *env, desk string) {
	fmt.Fprintf(e.stderr, "created desk %q\n", desk)
}
