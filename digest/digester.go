package digest

import (
	"context"

	"github.com/sharedesk/transcript"
)

// Request is one fold's input to a Digester.
type Request struct {
	Conversation transcript.Conversation
	Prior        *transcript.Digest   // the digest this fold extends; nil for the first
	Messages     []transcript.Message // the rows to fold in, chronological, each with its author
	Budget       int                  // the most characters (runes) the text may hold
	// Current, when not nil, reports whether Prior and Messages still hold what their desk
	// does: an error matching ErrSuperseded once a correction (an edit or a redaction) of
	// one of them, or the desk's deletion, was stored after the fold read them, the store's
	// error when it cannot tell, else nil. A digester that sends them out of the process
	// calls it right before each send, retries included, and returns its error without
	// sending: so no request that begins after a redaction has answered carries the words
	// it erased. Fold sets it.
	Current func(ctx context.Context) error
}

// Digester writes a digest's text: Prior's story extended by Messages, within Budget. It is
// safe for concurrent use and honours ctx.
type Digester interface {
	Digest(ctx context.Context, r Request) (string, error)
}

// Policy says when a conversation folds and how much. A zero field takes its default; Fold
// refuses a negative one, and one above its bound (Validate).
type Policy struct {
	KeepLive   int // qualifying rows above Through never folded (default transcript.SessionWindow; at most 100,000)
	FoldAfter  int // new qualifying rows beyond KeepLive before the next fold (default 20; at most 100,000)
	InputLimit int // the most rows one fold reads (default 200, at most 100,000; an older backlog folds over several)
	Budget     int // the most characters a digest holds (default 4000; at most 64 KiB)
}
