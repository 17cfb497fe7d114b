package pgstore

import (
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// holdsCorrection reports whether one of rows is a correction, which makes an append take
// the locked way: its target must be read, under the desk's lock, before anything is
// written.
func holdsCorrection(rows []transcript.Message) bool {
	for _, r := range rows {
		if r.IsCorrection() {
			return true
		}
	}
	return false
}

// readStored reads storedRowsSQL's (or storedRowSQL's) result from br, at most n rows, by
// Seq, decoded as a read decodes them.
func (s *Store) readStored(br pgx.BatchResults, n int) (map[transcript.Sequence]transcript.Message, error) {
	res, err := br.Query()
	if err != nil {
		return nil, err
	}
	rows, err := scanMessages(res, make([]transcript.Message, 0, n), &s.audiences)
	if err != nil {
		return nil, err
	}
	stored := make(map[transcript.Sequence]transcript.Message, len(rows))
	for _, r := range rows {
		stored[r.Seq] = r
	}
	return stored, nil
}

// queueRevisions queues on b, after an append's insert, the updates of the rows of desk
// stored before it (Seq at most base) that its corrections change: reviseSQL for each, its
// terms' change (queueRevisedTerms, from the stored row, in stored), and for a redaction
// eraseSQL too. It returns the function that reads their results from the
// batch's, checking that each revised row was found.
func queueRevisions(b *pgx.Batch, key searchKey, desk string, base transcript.Sequence, revisions []storage.Revision, stored map[transcript.Sequence]transcript.Message) func(pgx.BatchResults) error {
	terms := make([]int, len(revisions))
	for i, r := range revisions {
		target := stored[r.Target]
		b.Queue(reviseSQL, desk, int64(r.Target), r.Content, r.Redacted, int64(r.Revised))
		terms[i] = queueRevisedTerms(b, key, desk, &r, &target)
		if r.Redacted {
			b.Queue(eraseSQL, desk, int64(r.Target), int64(base))
		}
	}
	return func(br pgx.BatchResults) error {
		for i, r := range revisions {
			tag, err := br.Exec()
			if err != nil {
				return fmt.Errorf("revise row %d: %w", r.Target, err)
			}
			if tag.RowsAffected() != 1 {
				return fmt.Errorf("revise row %d: updated %d rows, want 1", r.Target, tag.RowsAffected())
			}
			for range terms[i] {
				if _, err := br.Exec(); err != nil {
					return fmt.Errorf("revise the terms of row %d: %w", r.Target, err)
				}
			}
			if r.Redacted {
				if _, err := br.Exec(); err != nil {
					return fmt.Errorf("erase the corrections of row %d: %w", r.Target, err)
				}
			}
		}
		return nil
	}
}
