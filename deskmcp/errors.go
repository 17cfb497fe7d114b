package deskmcp

import "errors"

// The tools' refusals. A tool answers each with a tool error (isError, the error's text),
// not a protocol error, so that the model reads it and can try again. None quotes content,
// and none tells a thread, a parent or a message the participant may not read from one that
// does not exist.
var (
	// ErrNoThread: the thread argument names no row the participant can read.
	ErrNoThread = errors.New("deskmcp: no such thread")
	// ErrNoParent: the parent argument names no row the participant can read.
	ErrNoParent = errors.New("deskmcp: no such parent")
	// ErrNoMessage: the seq edit_message or redact_message names no row the participant
	// can read.
	ErrNoMessage = errors.New("deskmcp: no such message")
	// ErrNotAuthor: an edit of a message someone else wrote, or a redaction of one by
	// anyone but its author or the operator.
	ErrNotAuthor = errors.New("deskmcp: not the author")
	// ErrRedacted: a correction of a message that was redacted; nothing of it is left.
	ErrRedacted = errors.New("deskmcp: redacted")
	// ErrBadAudience: an audience entry is not a participant, or the audience is refused
	// (the author itself, a participant twice, too many, or other readers than a reply to
	// an aside keeps).
	ErrBadAudience = errors.New("deskmcp: bad audience")
	// ErrBadMessage: a message the desk cannot keep (too long, not UTF-8, a NUL byte, a bad
	// key), a key that names another message, or a correction of what cannot be corrected
	// (a correction, a blank row) or without content. Empty content is a blank row, which a desk
	// keeps (it shows in no view).
	ErrBadMessage = errors.New("deskmcp: bad message")
	// ErrBadQuery: a search query with no word, too many words or a word too long; the
	// refusal wraps transcript.ErrBadSearch, whose text says which, quoting none of it.
	ErrBadQuery = errors.New("deskmcp: bad query")
	// ErrNoSearch: the desk's store cannot search (its log is no transcript.Searcher).
	ErrNoSearch = errors.New("deskmcp: this desk's store cannot search")
	// ErrTooFewTokens: max_tokens cannot hold even the first message a read would deliver,
	// the newest one a view would show, or the newest hit of a search.
	ErrTooFewTokens = errors.New("deskmcp: max_tokens too small")
	// ErrUnavailable: the desk's store failed; the call changed nothing and may be tried
	// again. The server's log has the cause.
	ErrUnavailable = errors.New("deskmcp: the desk is unavailable, try again")
)
