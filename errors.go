package transcript

import (
	"errors"
	"fmt"
)

// ErrContract is matched by every *ContractError: the host's Log returned a page that breaks
// the port contract. Each rule also has its own sentinel below.
var ErrContract = errors.New("log broke the page contract")

// The page contract's rules, in the order Pager checks them. A *ContractError unwraps to
// exactly one of them.
var (
	ErrPageTooLarge      = errors.New("page larger than its limit")              // rule 1
	ErrEmptyPageCursor   = errors.New("empty page with a cursor")                // rule 2
	ErrInvalidRow        = errors.New("invalid row")                             // rule 3
	ErrDuplicate         = errors.New("sequence already seen in this walk")      // rule 4
	ErrOutOfRange        = errors.New("row not below the read's bound")          // rule 5
	ErrNotDescending     = errors.New("page not in strictly descending order")   // rule 6
	ErrCursorStuck       = errors.New("cursor does not move below the bound")    // rule 7
	ErrCursorAfterOldest = errors.New("cursor newer than the page's oldest row") // rule 8
)

// ErrInvalidAuthor is matched by every *AuthorError: the refusals of Author.Validate,
// ParseAuthor, ParseAuthorKind and Author.UnmarshalJSON.
var ErrInvalidAuthor = errors.New("invalid author")

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
