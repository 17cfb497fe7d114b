package transcript

import (
	"context"
	"math"
)

// ReadableRow returns row seq of log, and ok = true, when the row exists and viewer may read
// it (Message.ReadableBy). Otherwise ok is false, and it is the same answer for a row that
// does not exist and for one the viewer may not read: a caller that refuses a parent or a
// thread the viewer may not see (the service's 404, the MCP tools' errors) tells it nothing
// of the row. seq 0 names no row.
//
// It makes one read of one row (below seq+1), checked as Pager checks every page: a host
// failure is a *ReadError, a broken page a *ContractError. Rows never change nor go away,
// so the answer holds for as long as the log does. The returned row is the caller's.
func ReadableRow(ctx context.Context, log Log, seq Sequence, viewer Author) (m Message, ok bool, err error) {
	if seq == 0 || seq == math.MaxUint64 {
		return Message{}, false, nil
	}
	rows, err := NewPager(log, seq+1).Next(ctx, 1)
	if err != nil {
		return Message{}, false, err
	}
	if len(rows) == 0 || rows[0].Seq != seq || !rows[0].ReadableBy(viewer) {
		return Message{}, false, nil
	}
	m = rows[0]
	m.Audience = append([]Author(nil), m.Audience...)
	return m, true, nil
}
