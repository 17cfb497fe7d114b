package logtest

import (
	"context"
	"errors"
	"time"

	"github.com/sharedesk/transcript"
)

// checkCancellation: ReadBefore with a cancelled or expired ctx fails with an error matching
// context.Canceled or context.DeadlineExceeded. The kit calls the Log directly, since a
// Pager does not read once ctx is done.
func checkCancellation(ctx context.Context, d Desk, r *report) {
	rows, ok := fill(ctx, d, 5, r)
	if !ok {
		return
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancelExpired := context.WithDeadline(ctx, time.Unix(0, 0))
	defer cancelExpired()
	for _, c := range []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"cancelled", cancelled, context.Canceled},
		{"expired", expired, context.DeadlineExceeded},
	} {
		for _, b := range []bound{{0, transcript.PageSize}, {rows[3].Seq, 1}} {
			p := page{before: b.before, limit: b.limit}
			pg, err := d.ReadBefore(c.ctx, b.before, b.limit)
			switch {
			case err == nil:
				r.add(failf(kindCancel, "%s with a %s ctx: got %d rows and no error, want an error matching %v", p, c.name, len(pg.Messages), c.want))
			case !errors.Is(err, c.want):
				r.add(failf(kindCancel, "%s with a %s ctx: got error %q, want one matching %v with errors.Is", p, c.name, err, c.want))
			}
		}
	}
}
