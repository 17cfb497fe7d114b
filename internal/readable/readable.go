package readable

import (
	"context"
	"math"

	"github.com/sharedesk/transcript"
)

// Head returns the newest Seq of log, 0 when it holds no row, in one read of one row,
// checked as Row's is.
func Head(ctx context.Context, log transcript.Log) (transcript.Sequence, error) {
	rows, err := transcript.NewPager(log, 0).Next(ctx, 1)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	return rows[0].Seq, nil
}

// Row returns row seq of log, and ok = true, when the row exists and viewer may read it
// (transcript.Message.ReadableBy). Otherwise ok is false, and it is the same answer for a
// row that does not exist and for one the viewer may not read: a caller that refuses a
// parent or a thread the viewer may not see tells it nothing of the row. seq 0 names no
// row.
//
// It makes one read of one row (below seq+1), checked as transcript.Pager checks every
// page: a host failure is a *transcript.ReadError, a broken page a
// *transcript.ContractError. Rows never change nor go away, so the answer holds for as
// long as the log does. The returned row is the caller's.
func Row(ctx context.Context, log transcript.Log, seq transcript.Sequence, viewer transcript.Author) (m transcript.Message, ok bool, err error) {
	if seq == 0 || seq == math.MaxUint64 {
		return transcript.Message{}, false, nil
	}
	rows, err := transcript.NewPager(log, seq+1).Next(ctx, 1)
	if err != nil {
		return transcript.Message{}, false, err
	}
	if len(rows) == 0 || rows[0].Seq != seq || !rows[0].ReadableBy(viewer) {
		return transcript.Message{}, false, nil
	}
	m = rows[0]
	m.Audience = append([]transcript.Author(nil), m.Audience...)
	return m, true, nil
}

// Thread reports whether seq names a thread viewer may read: a row of log viewer may read
// (Row) that is no correction, which nothing replies to. The answer is the same for a row
// that does not exist, one the viewer may not read, and a correction: a caller refuses all
// three as no such thread, telling the viewer nothing of the row. seq 0, the channel, is
// no thread.
func Thread(ctx context.Context, log transcript.Log, seq transcript.Sequence, viewer transcript.Author) (bool, error) {
	m, ok, err := Row(ctx, log, seq, viewer)
	return ok && !m.IsCorrection(), err
}
