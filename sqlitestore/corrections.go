package sqlitestore

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// The statements that apply corrections to stored rows: a point UPDATE of the target on the
// (desk, seq) index, and for a redaction the erasure of the target's corrections, found on
// the partial (desk, corrects, seq) index (the term corrects <> 0 is its condition, spelt
// out for the planner).
const (
	reviseSQL = `
UPDATE messages SET content = ?3, redacted = ?4, revised = ?5
WHERE desk = ?1 AND seq = ?2`
	eraseCorrectionsSQL = `
UPDATE messages SET content = '', redacted = 1
WHERE desk = ?1 AND corrects = ?2 AND corrects <> 0`
)

// revise writes revisions, what an append's corrections change in rows stored before it
// (storage.Settlement.Revisions), in the append's transaction, before its new rows are
// inserted: each target's content, redacted and revised, and for a redaction the erasure of
// every correction of the target stored before the append; and the target's search index
// entry: the old one deleted (unindex), an edit's new words written, none for a
// redaction. Corrections have no entry
// (storage.IndexTerms gives them no terms), so their erasure leaves the index as it is.
// With secure_delete on the writer's connection, SQLite overwrites the erased text in the
// file's pages.
func (w *writeTx) revise(ctx context.Context, revisions []storage.Revision) error {
	for _, r := range revisions {
		id, target, err := w.unindex(ctx, r.Target)
		if err != nil {
			return err
		}
		res, err := w.tx.StmtContext(ctx, w.s.revise).ExecContext(ctx, w.desk, int64(r.Target), r.Content, r.Redacted, int64(r.Revised))
		if err != nil {
			return fmt.Errorf("correcting row %d: %w", r.Target, err)
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return fmt.Errorf("correcting row %d: %d rows updated (%v), want 1", r.Target, n, err)
		}
		target.Content, target.Redacted = r.Content, r.Redacted
		if err := w.index(ctx, id, []transcript.Message{target}); err != nil {
			return err
		}
		if err := w.flushIndex(ctx); err != nil {
			return err
		}
		if !r.Redacted {
			continue
		}
		if _, err := w.tx.StmtContext(ctx, w.s.eraseCorrections).ExecContext(ctx, w.desk, int64(r.Target)); err != nil {
			return fmt.Errorf("erasing the corrections of row %d: %w", r.Target, err)
		}
	}
	return nil
}

// RestoreBatch stores rows an export wrote as the newest rows of desk, as they were stored:
// AppendBatch, with a storage.Batch whose Restore is set. A row's Revised and Redacted
// are kept, an erased row and an erased correction are stored as they are, and a correction
// of a row restored with it is not applied again, since the row holds its result, while one
// of a row stored before is applied as AppendBatch applies it (a later export's correction
// of a row an earlier one brought); a Revised not above its row's Seq is refused. Everything else (keys, parents, audiences, errors, all or nothing) is as for
// AppendBatch. Importing an export into an empty desk thus reproduces every row.
func (s *Store) RestoreBatch(ctx context.Context, desk string, rows []transcript.Message) error {
	return s.appendBatch(ctx, &storage.Batch{Desk: desk, Messages: rows, Restore: true})
}
