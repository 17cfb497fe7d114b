package transcript

import (
	"errors"
	"fmt"
)

// The errors of this package. Each refusal matches one or more of them with errors.Is.
var (
	// ErrInvalidMessage is matched by the errors of Message.ValidateNew and of a log's
	// Append when a message cannot be stored.
	ErrInvalidMessage = errors.New("invalid message")

	// The refusals of what no store keeps. Each is matched, with ErrInvalidMessage, by the
	// errors of Message.ValidateNew and of a log's Append.

	// ErrTooLarge: the content is over MaxContent bytes, or over the store's lower limit.
	ErrTooLarge = errors.New("content over the size limit")
	// ErrText: a text (content, an id or a label) holds invalid UTF-8 or a NUL byte.
	// PostgreSQL's text type holds neither, and every store refuses both, so that every desk
	// of one store can be kept by another.
	ErrText = errors.New("text a store cannot keep")
	// ErrAt: At lies outside the years 1 to 9999, the times RFC 3339 (and so JSON) can write.
	ErrAt = errors.New("at outside the years 1 to 9999")

	// ErrNoParent is matched, with ErrInvalidMessage, by a log's refusal of a message whose
	// Parent is not an older row of the same desk. A service answers it as it answers
	// ErrNotReadable, so that an outsider cannot tell a missing row from an aside.
	ErrNoParent = errors.New("parent is not an older row of the desk")

	// Errors of the aside rules. Both are matched together with ErrInvalidMessage.

	// ErrNotReadable is matched by the refusal of a reply whose author may not read its
	// parent, and of a correction whose author may not read its target (or that names no
	// row of the desk). The error names the row's Seq only: never its content or its
	// readers.
	ErrNotReadable = errors.New("row not readable by its writer")
	// ErrInvalidAudience is matched by the refusal of a malformed Audience, and of a reply to
	// an aside that lists an audience other than the aside's readers.
	ErrInvalidAudience = errors.New("invalid audience")

	// Errors of the correction rule (see Message.ResolveCorrection). Both are matched
	// together with ErrInvalidMessage.

	// ErrNotAuthor is matched by the refusal of an edit by anyone but its target's author,
	// and of a redaction by anyone but the target's author or the operator.
	ErrNotAuthor = errors.New("only the row's author may edit it")
	// ErrRedacted is matched by the refusal of a correction of a row that was redacted.
	ErrRedacted = errors.New("the row was redacted")

	// The refusals of a Key.

	// ErrKeyConflict is matched by the refusal of an append whose Key the desk already
	// holds for a different row; the error is a *KeyConflictError.
	ErrKeyConflict = errors.New("key already names a different row")
	// ErrDuplicateKey is matched, with ErrInvalidMessage, by the refusal of a batch that
	// carries one Key on two messages (see storage.Batch.Check).
	ErrDuplicateKey = errors.New("one key on two messages of a batch")

	// ErrInvalidDesk is matched by the errors of ValidateDesk (each an *InvalidError), and by
	// a store's refusal of a write to a desk whose name ValidateDesk refuses (together with
	// ErrInvalidMessage for an append).
	ErrInvalidDesk = errors.New("invalid desk name")

	// ErrInvalidAuthor is matched by the refusals of Author.Validate, ParseAuthor,
	// AuthorKind.UnmarshalText and Author.UnmarshalJSON, each an *InvalidError.
	ErrInvalidAuthor = errors.New("invalid author")

	// ErrBadSearch is matched by the refusal of a search whose text holds no term, more than
	// MaxSearchTerms terms, or a term longer than MaxTermBytes: an *InvalidError.
	ErrBadSearch = errors.New("bad search")

	// ErrContract is matched by every *ContractError: the host's Log returned a page that breaks
	// the port contract. Each rule also has its own sentinel below.
	ErrContract = errors.New("log broke the page contract")

	// The page contract's rules, in the order Pager checks them. A *ContractError unwraps to
	// exactly one of them.

	ErrPageTooLarge      = errors.New("page larger than its limit")              // rule 1
	ErrEmptyPageCursor   = errors.New("empty page with a cursor")                // rule 2
	ErrInvalidRow        = errors.New("invalid row")                             // rule 3
	ErrDuplicate         = errors.New("sequence already seen in this walk")      // rule 4
	ErrOutOfRange        = errors.New("row not below the read's bound")          // rule 5
	ErrNotDescending     = errors.New("page not in strictly descending order")   // rule 6
	ErrCursorStuck       = errors.New("cursor does not move below the bound")    // rule 7
	ErrCursorAfterOldest = errors.New("cursor newer than the page's oldest row") // rule 8
)

// ContractError reports a page that broke the port contract: which read of the walk, what
// was asked for, which sequence (or cursor) broke which rule.
type ContractError struct {
	Read   int      // 1-based number of the read within its walk
	Before Sequence // the bound asked for (0: from the newest row)
	Limit  int      // the limit asked for
	Seq    Sequence // the offending row's Seq, or the cursor for rules 2, 7 and 8; for rule 1 the first row past the limit
	Err    error    // the rule's sentinel, such as ErrDuplicate
}

func (e *ContractError) Error() string {
	return fmt.Sprintf("read %d (before %d, limit %d): seq %d: %v", e.Read, e.Before, e.Limit, e.Seq, e.Err)
}

// Unwrap returns the rule's sentinel.
func (e *ContractError) Unwrap() error { return e.Err }

// Is reports that every contract error matches ErrContract.
func (e *ContractError) Is(target error) bool { return target == ErrContract }

// AppendError is a store's refusal of an append: which desk, which message of a batch, and
// what is wrong with it. Err matches ErrInvalidMessage, except for a message whose Key names
// a different stored row: then Err is the *KeyConflictError, which matches ErrKeyConflict
// and not ErrInvalidMessage (errors.As finds it through the AppendError). Nothing of the
// append was stored. Every store of this module refuses with it (sqlitestore.AppendError and
// pgstore.AppendError are this type), so errors.As finds one type whatever the store.
type AppendError struct {
	Desk  string // the desk appended to, as given
	Index int    // the message's position in the batch; -1 for Append's one message
	Err   error  // what is wrong: matches ErrInvalidMessage or ErrKeyConflict
}

func (e *AppendError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("append to desk %q: %s", e.Desk, e.Err)
	}
	return fmt.Sprintf("append batch to desk %q: message %d: %s", e.Desk, e.Index, e.Err)
}

// Unwrap returns what is wrong with the message.
func (e *AppendError) Unwrap() error { return e.Err }

// ReadError wraps an error the host's Log returned from ReadBefore, with the read it failed
// on. It unwraps to the host's error, so context.Canceled and context.DeadlineExceeded stay
// matchable with errors.Is.
type ReadError struct {
	Read   int      // 1-based number of the read within its walk
	Before Sequence // the bound asked for
	Limit  int      // the limit asked for
	Err    error    // what the host returned
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read %d (before %d, limit %d): %v", e.Read, e.Before, e.Limit, e.Err)
}

// Unwrap returns the host's error.
func (e *ReadError) Unwrap() error { return e.Err }
