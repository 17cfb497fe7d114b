package digest

import (
	"context"
	"fmt"
	"time"
)

// Bounded returns d with each of its Digest calls bounded by timeout: past it the call's
// context ends, d (which honours it) fails, and the error says that no answer came within
// timeout and matches context.DeadlineExceeded. A call whose own context ends first fails
// as d fails it. Its Name is d's, or d's Go type's when d does not name itself, so that the
// digests it writes record d. A timeout of 0 or less bounds nothing.
func Bounded(d Digester, timeout time.Duration) Named {
	return bounded{d: d, name: digesterName(d), timeout: timeout}
}

type bounded struct {
	d       Digester
	name    string
	timeout time.Duration
}

func (b bounded) Name() string { return b.name }

func (b bounded) Digest(ctx context.Context, r Request) (string, error) {
	if b.timeout <= 0 {
		return b.d.Digest(ctx, r)
	}
	inner, cancel := context.WithTimeoutCause(ctx, b.timeout, noAnswerWithin(b.timeout))
	defer cancel()
	text, err := b.d.Digest(inner, r)
	if err != nil && inner.Err() != nil && ctx.Err() == nil {
		return "", fmt.Errorf("digest: %s: %w", b.name, context.Cause(inner))
	}
	return text, err
}

// noAnswerWithin is the cause of a Digest whose timeout, d, passed: it matches
// context.DeadlineExceeded.
func noAnswerWithin(d time.Duration) error {
	return fmt.Errorf("no answer within %v: %w", d, context.DeadlineExceeded)
}
