package posting

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
)

// Request is a post as a transport decoded it. The author is not part of it: it is the
// participant the transport authenticated.
type Request struct {
	Content string
	Parent  transcript.Sequence // 0: a root
	// Audience is nil for a message the whole desk reads; an empty, non-nil Audience is
	// refused (it names no reader).
	Audience []Entry
	Key      string
	// AllowBlank stores blank content (empty, or white space only), which no view shows: a
	// post that means it, such as the command's append --allow-blank. Without it blank
	// content is refused (Blank).
	AllowBlank bool
}

// Entry is one audience entry as the transport decoded it: a participant, or, in Err, why
// the entry names none.
type Entry struct {
	Author transcript.Author
	Err    error
}

// Kind is what kind of refusal an *Error is.
type Kind uint8

const (
	InvalidMessage  Kind = iota + 1 // a message no store keeps, or one the desk refuses
	InvalidAudience                 // the audience is refused
	InvalidEntry                    // an audience entry names no participant ("entry 1 is not ...")
	TooLarge                        // content over the content limit
	NoParent                        // no row the author may read has the parent's seq
	KeyConflict                     // the key names a different row of the desk
	NoTarget                        // a correction's target: no row the author may read has its seq
	NotAuthor                       // a correction by someone who may not make it (an edit by anyone but the author; a redaction by anyone but the author or the operator)
	Redacted                        // a correction of a row that was redacted
	Blank                           // a post or an edit whose content is empty or white space only, which no view shows
)

// Error is a refusal of a post. Nothing was stored.
type Error struct {
	Kind   Kind
	Reason string // what is wrong: never content, never an aside's readers
	Err    error  // the refusal it was found by, or nil
}

func (e *Error) Error() string { return "posting: " + e.Reason }

// Unwrap returns the refusal the error was found by.
func (e *Error) Unwrap() error { return e.Err }

// Check returns the message req, posted by author, makes, or its refusal (an *Error): the
// checks of Prepare that need no desk, in its order (the audience's entries, blank content,
// transcript.Message.ValidateNew). A transport that reports these before it reaches a store
// calls Check first; Prepare makes them again.
func Check(author transcript.Author, req Request) (transcript.Message, error) {
	m := transcript.Message{Author: author, Content: req.Content, Parent: req.Parent, Key: req.Key}
	if req.Audience != nil && len(req.Audience) == 0 {
		return m, &Error{Kind: InvalidAudience, Reason: "an empty audience names no reader: leave the audience out (omit the audience) for a message the whole desk reads"}
	}
	for i, e := range req.Audience {
		if e.Err != nil {
			return m, &Error{Kind: InvalidEntry, Reason: fmt.Sprintf("entry %d is not a participant: operator, person:ID, agent:ID or system:KIND, each with an optional :LABEL", i)}
		}
		m.Audience = append(m.Audience, e.Author)
	}
	if m.Blank() && !req.AllowBlank {
		return m, &Error{Kind: Blank, Reason: "the content is blank (empty or white space only), and no view shows a blank message: give it text"}
	}
	if err := m.ValidateNew(); err != nil {
		kind := InvalidMessage
		switch {
		case errors.Is(err, transcript.ErrTooLarge):
			kind = TooLarge
		case errors.Is(err, transcript.ErrInvalidAudience):
			kind = InvalidAudience
		}
		return m, &Error{Kind: kind, Reason: reasonOf(err), Err: err}
	}
	return m, nil
}

// Prepare turns req, posted by author to the desk log holds, into the message to append,
// and returns with it the parent it replies to (nil for a root), as stored. The checks, in
// order: the audience's entries, the content (Blank when it is empty or white space only,
// unless req.AllowBlank), transcript.Message.ValidateNew (TooLarge for content over
// transcript.MaxContent), the parent (NoParent when it does not exist or author may not
// read it: one read of one row) and the reply rule on it
// (transcript.Message.ResolveAudience). A refusal is an *Error; an error reading the parent
// is returned as it is (a *transcript.ReadError or *transcript.ContractError), the store's
// failure and not the post's.
func Prepare(ctx context.Context, log transcript.Log, author transcript.Author, req Request) (transcript.Message, *transcript.Message, error) {
	m, err := Check(author, req)
	if err != nil {
		return m, nil, err
	}
	if m.Parent == 0 {
		return m, nil, nil
	}
	parent, ok, err := readable.Row(ctx, log, m.Parent, author)
	switch {
	case err != nil:
		return m, nil, err
	case !ok:
		return m, nil, &Error{Kind: NoParent, Reason: fmt.Sprintf("no message %d that the author can read", m.Parent)}
	case parent.IsCorrection():
		return m, nil, &Error{Kind: InvalidMessage, Reason: fmt.Sprintf("row %d is a correction (an edit or a redaction): reply to the message it corrects, #%d", parent.Seq, parent.Corrects)}
	}
	if _, err := m.ResolveAudience(&parent); err != nil {
		return m, nil, Refusal(m, err)
	}
	return m, &parent, nil
}

// Refusal returns err, the error of m's Append or AppendNew, as the post's refusal: the
// store's refusal of m as an *Error, worded here by its sentinel (a store's own text is the
// store's), or err itself when it is no refusal (nil, or the store's failure).
func Refusal(m transcript.Message, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, transcript.ErrKeyConflict):
		return &Error{Kind: KeyConflict, Reason: fmt.Sprintf("key %q already names a different row of the desk", m.Key), Err: err}
	case !errors.Is(err, transcript.ErrInvalidMessage):
		return err
	case errors.Is(err, transcript.ErrTooLarge): // the store's own limit, below transcript.MaxContent
		return &Error{Kind: TooLarge, Reason: "the content is over the store's limit", Err: err}
	case m.IsCorrection():
		return correctionRefusal(m, err)
	case errors.Is(err, transcript.ErrNotReadable), errors.Is(err, transcript.ErrNoParent):
		return &Error{Kind: NoParent, Reason: fmt.Sprintf("no message %d that the author can read", m.Parent), Err: err}
	case errors.Is(err, transcript.ErrInvalidAudience):
		return &Error{Kind: InvalidAudience, Reason: "the audience is refused: a reply to an aside keeps the aside's readers (leave the audience out to reply to them), and an aside's readers must not be only its author", Err: err}
	case errors.Is(err, transcript.ErrInvalidDesk):
		return &Error{Kind: InvalidMessage, Reason: "the desk's name breaks the rule for desk names (1 to 100 letters, digits, '.', '_' or '-', not . or ..): it can be read and exported, not written to", Err: err}
	}
	return &Error{Kind: InvalidMessage, Reason: "the store refused the message (text must be valid UTF-8 without NUL bytes, and the parent an older row of the desk)", Err: err}
}

// correctionRefusal is Refusal of the correction m.
func correctionRefusal(m transcript.Message, err error) error {
	switch {
	case errors.Is(err, transcript.ErrNotReadable), errors.Is(err, transcript.ErrNoParent):
		return &Error{Kind: NoTarget, Reason: fmt.Sprintf("no message %d that the author can read", m.Corrects), Err: err}
	case errors.Is(err, transcript.ErrNotAuthor):
		reason := fmt.Sprintf("only the author of message %d may edit it", m.Corrects)
		if m.Redacted {
			reason = fmt.Sprintf("only the author of message %d or the operator may redact it", m.Corrects)
		}
		return &Error{Kind: NotAuthor, Reason: reason, Err: err}
	case errors.Is(err, transcript.ErrRedacted):
		return &Error{Kind: Redacted, Reason: fmt.Sprintf("message %d was redacted: it can no longer be corrected", m.Corrects), Err: err}
	case errors.Is(err, transcript.ErrTooLarge):
		return &Error{Kind: TooLarge, Reason: "the content is over the store's limit", Err: err}
	case errors.Is(err, transcript.ErrInvalidAudience):
		return &Error{Kind: InvalidAudience, Reason: "a correction keeps the readers of the row it corrects: leave its audience out", Err: err}
	}
	var target *transcript.TargetError
	if errors.As(err, &target) && target.Corrects != 0 {
		return &Error{Kind: InvalidMessage, Reason: fmt.Sprintf("message %d is a correction of message %d: correct message %d itself", target.Seq, target.Corrects, target.Corrects), Err: err}
	}
	if target != nil {
		return &Error{Kind: InvalidMessage, Reason: fmt.Sprintf("message %d is blank: it holds nothing to correct", target.Seq), Err: err}
	}
	return &Error{Kind: InvalidMessage, Reason: reasonOf(err), Err: err}
}

// reasonOf is what err, a refusal of a message, says is wrong: the Reason of the
// *transcript.InvalidMessageError it holds (whoever wrapped it: a store's AppendError names
// its own package and desk, which the post's answer does not repeat), or fixed text.
func reasonOf(err error) string {
	var invalid *transcript.InvalidMessageError
	if errors.As(err, &invalid) {
		return invalid.Reason
	}
	return "the message is refused (text must be valid UTF-8 without NUL bytes, and the parent an older row of the desk)"
}
