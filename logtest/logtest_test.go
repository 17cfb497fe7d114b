package logtest

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

func newMemlog() (Desk, error) { return memlog.New(), nil }

func TestRunMemlog(t *testing.T) {
	Run(t, func(*testing.T) Desk { return memlog.New() })
}

func TestTestMemlog(t *testing.T) {
	if err := Test(t.Context(), newMemlog); err != nil {
		t.Fatal(err)
	}
}

func TestNewDeskFails(t *testing.T) {
	errOpen := errors.New("cannot open the store")
	err := Test(t.Context(), func() (Desk, error) { return nil, errOpen })
	if !errors.Is(err, errOpen) {
		t.Fatalf("Test with a failing newDesk: got %v, want an error matching %v", err, errOpen)
	}
	if got, want := len(failures(err)), len(checks); got != want {
		t.Errorf("Test with a failing newDesk: got %d failures, want %d (one per check)", got, want)
	}
	err = Test(t.Context(), func() (Desk, error) { return nil, nil })
	if got, want := len(failures(err)), len(checks); got != want {
		t.Errorf("Test with a nil Desk: got %d failures (%v), want %d", got, err, want)
	}
}

func TestCancelledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	err := Test(ctx, newMemlog)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Test with a cancelled ctx: got %v, want an error matching context.Canceled", err)
	}
}

// closingDesk is memlog that counts its Close calls and fails them.
type closingDesk struct {
	*memlog.Log
	closed *int
}

var errClose = errors.New("close failed")

func (d closingDesk) Close() error {
	*d.closed++
	return errClose
}

func TestClosesDesks(t *testing.T) {
	closed := 0
	err := Test(t.Context(), func() (Desk, error) { return closingDesk{memlog.New(), &closed}, nil })
	if closed != len(checks) {
		t.Errorf("got %d Close calls, want %d (one per check)", closed, len(checks))
	}
	if !errors.Is(err, errClose) {
		t.Errorf("got %v, want an error matching %v", err, errClose)
	}
}

func TestCheckNamesUnique(t *testing.T) {
	var names []string
	for _, c := range checks {
		if slices.Contains(names, c.name) {
			t.Errorf("check %q listed twice", c.name)
		}
		names = append(names, c.name)
	}
}

// failures returns the *CheckError values in err, which Test joins.
func failures(err error) []*CheckError {
	var out []*CheckError
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return nil
	}
	for _, e := range joined.Unwrap() {
		if ce, ok := errors.AsType[*CheckError](e); ok {
			out = append(out, ce)
		}
	}
	return out
}

// TestProjectionQueriesReachTheEdges makes sure the Projection check's queries, over its
// desk, include partial walks, empty views, full windows and thread roots fetched from below
// the walk, so agreement on them means something.
func TestProjectionQueriesReachTheEdges(t *testing.T) {
	var r report
	rows, ok := fill(t.Context(), memlog.New(), projectionRows, &r)
	if !ok {
		t.Fatal(r.failures())
	}
	log, err := memlog.From(rows)
	if err != nil {
		t.Fatal(err)
	}
	var partial, empty, full, rootFetched int
	for _, q := range projectionQueries(rows) {
		p, err := transcript.Project(t.Context(), log, q)
		if err != nil {
			t.Fatalf("%s: %v", describeQuery(q), err)
		}
		window := cmp.Or(q.Window, transcript.SessionWindow)
		switch {
		case p.Partial:
			partial++
		case len(p.Messages) == 0:
			empty++
		case len(p.Messages) == window:
			full++
		}
		if thread := q.Conversation.Thread; thread != 0 && len(p.Messages) > 0 && p.Messages[0].Seq == thread {
			if oldest := p.Head - transcript.Sequence(p.Scanned) + 1; oldest > thread {
				rootFetched++ // the walk stopped above the root: the extra read found it
			}
		}
	}
	for _, c := range []struct {
		what string
		n    int
	}{{"partial", partial}, {"empty", empty}, {"full-window", full}, {"root-fetched", rootFetched}} {
		if c.n == 0 {
			t.Errorf("no %s projection among the Projection check's queries", c.what)
		}
	}
}
