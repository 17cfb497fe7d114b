package logtest_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/logtest"
	"github.com/sharedesk/transcript/memlog"
)

// Test runs the kit without a *testing.T; in a host's tests, Run is the usual entry.
func ExampleTest() {
	err := logtest.Test(context.Background(), func() (logtest.Desk, error) {
		return memlog.New(), nil
	})
	fmt.Println("memlog conforms:", err == nil)
	// Output: memlog conforms: true
}

// greedyLog returns one row more than asked for.
type greedyLog struct{ *memlog.Log }

func (g greedyLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	return g.Log.ReadBefore(ctx, before, limit+1)
}

// A log that breaks the page contract fails with the broken rule's sentinel, and each
// failure names its check.
func ExampleTest_brokenLog() {
	err := logtest.Test(context.Background(), func() (logtest.Desk, error) {
		return greedyLog{memlog.New()}, nil
	})
	fmt.Println("page too large:", errors.Is(err, transcript.ErrPageTooLarge))
	if ce, ok := errors.AsType[*logtest.CheckError](err); ok {
		fmt.Println("first failing check:", ce.Check)
	}
	// Output:
	// page too large: true
	// first failing check: ExclusiveBound
}
