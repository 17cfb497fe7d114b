package logtest

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sharedesk/transcript"
)

// kind is a class of failure that is not a page-contract rule. A failure of a kind matches
// it with errors.Is.
type kind string

func (k kind) Error() string { return "logtest: " + string(k) }

const (
	kindNotEmpty   kind = "a new desk is not empty"
	kindAppend     kind = "Append did not return the stored row"
	kindRows       kind = "rows differ from what Append returned"
	kindEnd        kind = "the cursor misstates the end of the log"
	kindSkip       kind = "the cursor skips a row"
	kindOwnership  kind = "a page changed after it was returned"
	kindCancel     kind = "a read ignored a done context"
	kindVisibility kind = "a walk missed a row whose Append had returned"
	kindProjection kind = "Project disagrees with memlog"
	kindRead       kind = "a read failed"
)

// failure is an error of a kind; its message is err's.
type failure struct {
	kind kind
	err  error
}

func (f *failure) Error() string   { return f.err.Error() }
func (f *failure) Unwrap() []error { return []error{f.err, f.kind} }

// failf returns a failure of kind k with a formatted message.
func failf(k kind, format string, args ...any) error {
	return &failure{kind: k, err: fmt.Errorf(format, args...)}
}

// report collects the failures of one check. It keeps the first failure of each contract
// rule and each kind in full and counts the rest, so a log that breaks one rule on every
// read is not reported a hundred times. It is safe for concurrent use.
type report struct {
	mu      sync.Mutex
	errs    []error
	repeats map[error]int // rule or kind → failures after the first
	order   []error       // rules and kinds with repeats, in the order first seen
}

func (r *report) add(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if key := keyOf(err); key != nil {
		if n, seen := r.repeats[key]; seen {
			if n == 0 {
				r.order = append(r.order, key)
			}
			r.repeats[key] = n + 1
			return
		}
		if r.repeats == nil {
			r.repeats = make(map[error]int)
		}
		r.repeats[key] = 0
	}
	r.errs = append(r.errs, err)
}

func (r *report) errorf(format string, args ...any) { r.add(fmt.Errorf(format, args...)) }

// failures returns what the check found: each failure kept in full, then one line per rule
// or kind that failed again.
func (r *report) failures() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	errs := r.errs
	for _, key := range r.order {
		n, noun := r.repeats[key], "failures"
		if n == 1 {
			noun = "failure"
		}
		errs = append(errs, fmt.Errorf("and %d more %s of this kind: %w", n, noun, key))
	}
	return errs
}

// keyOf returns the contract rule or kind err is a failure of, or nil.
func keyOf(err error) error {
	if ce, ok := errors.AsType[*transcript.ContractError](err); ok {
		return ce.Err
	}
	if f, ok := errors.AsType[*failure](err); ok {
		return f.kind
	}
	if _, ok := errors.AsType[*transcript.ReadError](err); ok {
		return kindRead
	}
	for _, done := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, done) {
			return done
		}
	}
	return nil
}
