package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/posting"
	"github.com/sharedesk/transcript/stores"
)

// actionError is the failure of one thing the user asked for: action names it in the
// user's terms (`redact row 21 of desk "eng"`), and err is what went wrong, which userText
// words after it.
type actionError struct {
	action string
	// verb is the command's word for a correction ("edit", "redact"), which the words of
	// a refusal of it reuse; empty for an append.
	verb string
	as   transcript.Author // the participant the command wrote as
	// correctsRedacted: the correction's target is a correction of a row that was
	// redacted, which takes no more corrections (correctsRedactedRow).
	correctsRedacted bool
	err              error
}

func (e *actionError) Error() string { return e.action + ": " + e.err.Error() }
func (e *actionError) Unwrap() error { return e.err }

// appendAction is the action of an append as to desk, a reply when parent is not 0.
func appendAction(desk string, as transcript.Author, parent transcript.Sequence, err error) *actionError {
	if parent != 0 {
		return &actionError{action: fmt.Sprintf("reply to row %d of desk %q", parent, desk), as: as, err: err}
	}
	return &actionError{action: fmt.Sprintf("append to desk %q", desk), as: as, err: err}
}

// correctionAction is the action of verb ("edit", "redact") on row seq of desk, as as.
func correctionAction(verb, desk string, as transcript.Author, seq transcript.Sequence, err error) *actionError {
	return &actionError{action: fmt.Sprintf("%s row %d of desk %q", verb, seq, desk), verb: verb, as: as, err: err}
}

// userText is what the command says of err on its standard error, after "transcript: ":
// what the user did and what is wrong, each once, from the errors' fields (errors.As),
// never from another package's message with its name cut off. An error of no kind known
// here (a failure of the system, not of what the user asked) is said as it is.
func userText(err error) string {
	if interrupted, ok := errors.AsType[*interruptedError](err); ok {
		return interrupted.Error()
	}
	if action, ok := errors.AsType[*actionError](err); ok {
		return action.action + ": " + action.reason()
	}
	if refused, ok := errors.AsType[*transcript.AppendError](err); ok { // every store's refusal of an append
		return fmt.Sprintf("append to desk %q: %s", refused.Desk, refusalText(refused.Err))
	}
	if open, ok := errors.AsType[*stores.OpenError](err); ok {
		if hinted, ok := errors.AsType[*dbflag.HintError](err); ok {
			return open.Error() + " (" + hinted.Hint + ")"
		}
		return open.Error()
	}
	return err.Error()
}

// reason words e.err, the failure of e.action.
func (e *actionError) reason() string {
	refusal, ok := errors.AsType[*posting.Error](e.err)
	if !ok {
		return userText(e.err)
	}
	verb := e.verb
	switch refusal.Kind {
	case posting.Blank:
		if verb != "" {
			return "the new text is blank (empty or white space only); give the text, or redact the row to erase it"
		}
		return "the message is blank, and no view shows a blank message (give its text, or --allow-blank)"
	case posting.NoParent, posting.NoTarget:
		return fmt.Sprintf("no such row that %s may read", e.as)
	case posting.NotAuthor:
		if verb == "redact" {
			return fmt.Sprintf("only its author or the operator may redact it, not %s", e.as)
		}
		return fmt.Sprintf("only its author may edit it, not %s", e.as)
	case posting.Redacted:
		return "it was redacted: its content is erased, and it takes no more corrections"
	}
	if target, ok := errors.AsType[*transcript.TargetError](refusal); ok {
		switch {
		case target.Corrects != 0 && e.correctsRedacted:
			return fmt.Sprintf("it is a correction of row #%d, which was redacted and takes no more corrections", target.Corrects)
		case target.Corrects != 0:
			return fmt.Sprintf("it is a correction; %s the row it corrects (#%d)", verb, target.Corrects)
		}
		return fmt.Sprintf("it is blank: it holds nothing to %s", verb)
	}
	if refusal.Err != nil {
		return refusalText(refusal.Err)
	}
	return refusal.Reason
}

// refusalText words err, a refusal of a message: the reason of the
// *transcript.InvalidMessageError it holds, the key of a *transcript.KeyConflictError, or
// err as it is.
func refusalText(err error) string {
	if invalid, ok := errors.AsType[*transcript.InvalidMessageError](err); ok {
		return invalid.Reason
	}
	if conflict, ok := errors.AsType[*transcript.KeyConflictError](err); ok {
		return fmt.Sprintf("key %q already names row %d, a different message", conflict.Key, conflict.Seq)
	}
	return err.Error()
}

// noArguments is the usage error of fs's command given arguments it does not take, which
// suggests the flag one argument was likely meant for (cliflag.NoArguments).
func noArguments(fs *flag.FlagSet) error { return cliflag.NoArguments(fs, argumentGuesses...) }

// argumentGuesses are the flags a stray argument was likely meant for: --thread for a
// number, --desk for a desk's name, when the command has that flag.
var argumentGuesses = []cliflag.Guess{
	{Flag: "thread", Fits: func(arg string) bool {
		_, err := strconv.ParseUint(arg, 10, 63)
		return err == nil
	}},
	{Flag: "desk", Fits: func(arg string) bool { return transcript.ValidateDesk(arg) == nil }},
}
