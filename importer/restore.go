package importer

import (
	"context"

	"github.com/sharedesk/transcript"
)

// Restorer is a Store that can restore an export's rows as they were stored:
// sqlitestore.Store and pgstore.Store are both one. An import whose rows carry what only
// the log sets (see restoredRow) needs it; with any other store such an import fails and
// writes nothing.
type Restorer interface {
	// RestoreBatch appends rows to desk as AppendBatch does, all or nothing, but as an
	// export wrote them (transcript.ValidateRestoredWithin, transcript.SettleRestored):
	// their Revised and Redacted are kept, and their corrections are not applied again.
	RestoreBatch(ctx context.Context, desk string, rows []transcript.Message) error
}

// restoredRow reports whether m carries what only a log sets, and so comes from an export:
// a Revised, or Redacted on a row that corrects nothing (an erased row). A redaction, which
// carries Redacted too, is a writer's; an export holds its target, which carries Revised.
func restoredRow(m transcript.Message) bool {
	return m.Revised != 0 || (m.Redacted && !m.IsCorrection())
}
