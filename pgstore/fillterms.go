package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
)

// migrationFills are the steps in Go that some versions of the schema take after their
// file, in the same transaction: what SQL cannot compute.
var migrationFills = map[int]func(ctx context.Context, tx pgx.Tx) error{
	8: fillTerms,
}

// fillBatch is how many rows fillTerms reads and updates at a time, so that a large table
// is indexed in bounded memory.
const fillBatch = 5000

// fillRowsSQL reads, in (desk, seq) order after ($1, $2), up to $3 rows with what
// transcript.IndexTerms reads of them: the primary key's order, walked from where the last
// batch ended.
const fillRowsSQL = `
SELECT desk, seq, content, coalesce(corrects, 0), coalesce(redacted, false)
FROM transcript_messages
WHERE (desk, seq) > ($1, $2)
ORDER BY desk, seq
LIMIT $3`

// fillTermsSQL inserts the terms $3 of the rows of desks $1 and seqs $2, each a row's terms
// joined by spaces (indexTerms).
const fillTermsSQL = `
INSERT INTO transcript_terms (desk, seq, terms)
SELECT u.desk, u.seq, string_to_array(u.terms, ' ')
FROM unnest($1::text[], $2::bigint[], $3::text[]) AS u(desk, seq, terms)`

// fillTerms indexes the rows stored before the search index (version 8): it inserts each
// searchable row's terms, transcript.IndexTerms of it computed here in Go, fillBatch rows
// at a time, then, when it indexed any, analyzes the terms, so that the planner knows how
// common each term is from the first search on (see searchSQL). A store without rows is
// left without statistics, as a new store is.
func fillTerms(ctx context.Context, tx pgx.Tx) error {
	after, seq, indexed := "", int64(0), 0
	for {
		rows, err := tx.Query(ctx, fillRowsSQL, after, seq, fillBatch)
		if err != nil {
			return fmt.Errorf("index the stored rows: %w", err)
		}
		var (
			desks, terms []string
			seqs         []int64
			n            int
		)
		for rows.Next() {
			var (
				m        transcript.Message
				corrects int64
			)
			if err := rows.Scan(&after, &seq, &m.Content, &corrects, &m.Redacted); err != nil {
				rows.Close()
				return fmt.Errorf("index the stored rows: %w", err)
			}
			n++
			m.Corrects = transcript.Sequence(corrects)
			if t := indexTerms(&m); t != "" {
				desks, seqs, terms = append(desks, after), append(seqs, seq), append(terms, t)
			}
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("index the stored rows: %w", err)
		}
		indexed += len(desks)
		if len(desks) > 0 {
			if _, err := tx.Exec(ctx, fillTermsSQL, desks, seqs, terms); err != nil {
				return fmt.Errorf("index the stored rows: %w", err)
			}
		}
		if n < fillBatch {
			break
		}
	}
	if indexed == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, "ANALYZE transcript_terms"); err != nil {
		return fmt.Errorf("analyze the indexed rows: %w", err)
	}
	return nil
}
