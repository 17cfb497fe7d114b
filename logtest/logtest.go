package logtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/sharedesk/transcript"
)

// Desk is one desk of a host's store as the kit drives it: the Log under test and a way to
// add rows to it.
type Desk interface {
	transcript.Log
	// Append stores m as the desk's newest row and returns the stored row: m with the Seq
	// the store assigned, above every Seq it assigned before. The kit appends only valid
	// messages (a valid author, Parent 0 or a row Append returned, Content valid UTF-8) and
	// never from two goroutines at once.
	Append(ctx context.Context, m transcript.Message) (transcript.Message, error)
}

// CheckError is one failure of one check: the check's name, which is also the name of the
// subtest Run gives it, and what went wrong. Err wraps the *transcript.ContractError when a
// page broke the contract.
type CheckError struct {
	Check string
	Err   error
}

func (e *CheckError) Error() string { return "logtest: " + e.Check + ": " + e.Err.Error() }

// Unwrap returns what went wrong.
func (e *CheckError) Unwrap() error { return e.Err }

// Run runs every check of the kit as a subtest of t named after the check. Each subtest
// calls newDesk for a new, empty desk and reports each failure with t.Error. newDesk may
// call t.Fatal, and should release what the desk holds with t.Cleanup. The subtests run one
// after another, never in parallel.
func Run(t *testing.T, newDesk func(t *testing.T) Desk) {
	t.Helper()
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			d := newDesk(t)
			if d == nil {
				t.Fatal("logtest: newDesk returned a nil Desk")
			}
			var r report
			c.run(t.Context(), d, &r)
			for _, err := range r.failures() {
				t.Error(err)
			}
		})
	}
}

// Test runs every check of the kit, each on a new, empty desk from newDesk, and returns nil
// or every failure as a *CheckError, joined with errors.Join. If a desk implements io.Closer,
// Test closes it after its check and reports a failed Close. Test stops early when ctx is
// done; what the checks found up to then comes back with the context's error among them.
func Test(ctx context.Context, newDesk func() (Desk, error)) error {
	return test(ctx, newDesk, checks)
}

func test(ctx context.Context, newDesk func() (Desk, error), cs []check) error {
	var errs []error
	for _, c := range cs {
		if err := ctx.Err(); err != nil {
			errs = append(errs, &CheckError{Check: c.name, Err: err})
			break
		}
		for _, err := range c.runFresh(ctx, newDesk) {
			errs = append(errs, &CheckError{Check: c.name, Err: err})
		}
	}
	return errors.Join(errs...)
}

// check is one named rule of the kit. run reports what it finds to r; it must not stop the
// goroutine, so Test can use it too.
type check struct {
	name string
	run  func(ctx context.Context, d Desk, r *report)
}

// checks is every check of the kit, in the order Run and Test run them.
var checks = []check{
	{"EmptyLog", checkEmptyLog},
	{"ExclusiveBound", checkExclusiveBound},
	{"Limit", checkLimit},
	{"NextCursor", checkNextCursor},
	{"EndOfLog", checkEndOfLog},
	{"BoundAboveHead", checkBoundAboveHead},
	{"BoundAtOne", checkBoundAtOne},
	{"Traversal", checkTraversal},
	{"SliceOwnership", checkSliceOwnership},
	{"Cancellation", checkCancellation},
	{"ConcurrentReads", checkConcurrentReads},
	{"Projection", checkProjection},
}

// runFresh runs c on a desk of its own and returns its failures.
func (c check) runFresh(ctx context.Context, newDesk func() (Desk, error)) []error {
	d, err := newDesk()
	switch {
	case err != nil:
		return []error{fmt.Errorf("new desk: %w", err)}
	case d == nil:
		return []error{errors.New("new desk: newDesk returned a nil Desk")}
	}
	var r report
	c.run(ctx, d, &r)
	if closer, ok := d.(io.Closer); ok {
		if err := closer.Close(); err != nil {
			r.errorf("closing the desk: %w", err)
		}
	}
	return r.failures()
}
