package deskmcp

import (
	"errors"
	"fmt"
)

// The tools' refusals. A tool answers each with a tool error (isError, the error's text),
// not a protocol error, so that the model reads it and can try again. None quotes content,
// and none tells a thread, a parent or a message the participant may not read from one that
// does not exist.
var (
	// ErrNoThread: the thread argument names no row the participant can read.
	ErrNoThread error = &sentinel{"no such thread"}
	// ErrNoParent: the parent argument names no row the participant can read.
	ErrNoParent error = &sentinel{"no such parent"}
	// ErrNoMessage: the seq edit_message or redact_message names no row the participant
	// can read.
	ErrNoMessage error = &sentinel{"no such message"}
	// ErrNotAuthor: an edit of a message someone else wrote, or a redaction of one by
	// anyone but its author or the operator.
	ErrNotAuthor error = &sentinel{"not the author"}
	// ErrRedacted: a correction of a message that was redacted; nothing of it is left.
	ErrRedacted error = &sentinel{"redacted"}
	// ErrBadAudience: an audience entry is not a participant, or the audience is refused
	// (the author itself, a participant twice, too many, or other readers than a reply to
	// an aside keeps).
	ErrBadAudience error = &sentinel{"bad audience"}
	// ErrBadMessage: a message the desk cannot keep (blank content, which no view would
	// show; too long, not UTF-8, a NUL byte, a bad key), a key that names another message,
	// or a correction of what cannot be corrected (a correction, a blank row) or an edit
	// whose content is blank.
	ErrBadMessage error = &sentinel{"bad message"}
	// ErrBadQuery: a search query with no word, too many words or a word too long; the
	// refusal wraps transcript.ErrBadSearch, whose text says which, quoting none of it.
	ErrBadQuery error = &sentinel{"bad query"}
	// ErrNoSearch: the desk's store cannot search (its log is no transcript.Searcher).
	ErrNoSearch error = &sentinel{"this desk's store cannot search"}
	// ErrTooFewTokens: max_tokens cannot hold even the first message a read would deliver,
	// the newest one a view would show, or the newest hit of a search.
	ErrTooFewTokens error = &sentinel{"max_tokens too small"}
	// ErrUnavailable: the desk's store failed; the call changed nothing and may be tried
	// again. The server's log has the cause.
	ErrUnavailable error = &sentinel{"the desk is unavailable, try again"}
)

// sentinel is one of the tools' refusals: words, what a model reads of it, which the
// package's name precedes in Go's text.
type sentinel struct{ words string }

func (s *sentinel) Error() string { return "deskmcp: " + s.words }

// refusal is a tool's refusal of one call: kind, the sentinel it matches; detail, which
// follows the sentinel's words and says what the call gave and what to do; and the error
// it was found by, if any, matched too.
type refusal struct {
	kind   *sentinel
	detail string
	cause  error
}

func (r *refusal) Error() string { return r.kind.Error() + r.detail }

// Unwrap returns the sentinel, and the error the refusal was found by.
func (r *refusal) Unwrap() []error {
	if r.cause != nil {
		return []error{r.kind, r.cause}
	}
	return []error{r.kind}
}

// refuse returns the refusal of kind, one of the sentinels above, whose detail is
// formatted from format and args: " 7: no message ..." or ": the text holds no word".
func refuse(kind error, format string, args ...any) error {
	return &refusal{kind: kind.(*sentinel), detail: fmt.Sprintf(format, args...)}
}

// toolText is what a model reads of err, a tool's refusal: the sentinel's words and the
// refusal's detail, without the package's name; an error of the arguments, which names no
// package, as it is.
func toolText(err error) string {
	var r *refusal
	if errors.As(err, &r) {
		return r.kind.words + r.detail
	}
	var s *sentinel
	if errors.As(err, &s) {
		return s.words
	}
	return err.Error()
}
