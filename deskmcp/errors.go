package deskmcp

import "errors"

// The tools' refusals. A tool answers each with a tool error (isError, the error's text),
// not a protocol error, so that the model reads it and can try again. None quotes content,
// and none tells a thread or a parent the participant may not read from one that does not
// exist.
var (
	// ErrNoThread: the thread argument names no row the participant can read.
	ErrNoThread = errors.New("deskmcp: no such thread")
	// ErrNoParent: the parent argument names no row the participant can read.
	ErrNoParent = errors.New("deskmcp: no such parent")
	// ErrBadAudience: an audience entry is not a participant, or the audience is refused
	// (the author itself, a participant twice, too many, or other readers than a reply to
	// an aside keeps).
	ErrBadAudience = errors.New("deskmcp: bad audience")
	// ErrBadMessage: a message the desk cannot keep (too long, not UTF-8, a NUL byte, a bad
	// key) or a key that names another message. Empty content is a blank row, which a desk
	// keeps (it shows in no view).
	ErrBadMessage = errors.New("deskmcp: bad message")
	// ErrTooFewTokens: max_tokens cannot hold even the first message a read would deliver,
	// or the newest one a view would show.
	ErrTooFewTokens = errors.New("deskmcp: max_tokens too small")
	// ErrUnavailable: the desk's store failed; the call changed nothing and may be tried
	// again. The server's log has the cause.
	ErrUnavailable = errors.New("deskmcp: the desk is unavailable, try again")
)
