package pgstore

import (
	"context"
	"errors"
	"fmt"
	"unicode"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
)

// termsVersion names the tables transcript.Terms computes terms with: Go's Unicode tables
// (letters, digits, marks, lower case) and x/text's normalization tables. The same content
// gives the same terms while they stay the same; the index is rebuilt when they change
// (syncTerms).
var termsVersion = "unicode " + unicode.Version + ", norm " + norm.Version

// termsIndexVersion is the first schema version whose search index syncTerms keeps: the
// one keyed by desk and reader set.
const termsIndexVersion = 9

// reindexBatch is how many rows rebuildTerms reads and indexes at a time, so that a large
// table is indexed in bounded memory.
const reindexBatch = 5000

// reindexRowsSQL reads, in (desk, seq) order after ($1, $2), up to $3 rows with what
// transcript.IndexTerms and the reader set read of them: the primary key's order, walked
// from where the last batch ended.
const reindexRowsSQL = `
SELECT desk, seq, parent, author_kind, author_id, audience, content, coalesce(corrects, 0), coalesce(redacted, false)
FROM transcript_messages
WHERE (desk, seq) > ($1, $2)
ORDER BY desk, seq
LIMIT $3`

// reindexTermsSQL inserts the terms $5, their keys $6 and reader sets $2 of the rows of
// desks $1, seqs $3 and parents $4 (as insertTermsSQL takes them).
const reindexTermsSQL = `
INSERT INTO transcript_terms (desk, readers, seq, parent, terms, keys)
SELECT u.desk, u.readers, u.seq, u.parent, string_to_array(u.terms, ' '), string_to_array(u.keys, ' ')::bigint[]
FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::text[]) AS u(desk, readers, seq, parent, terms, keys)`

// reindexReadersSQL is insertReadersSQL for rows of several desks ($1).
const reindexReadersSQL = `
INSERT INTO transcript_term_readers (desk, kind, id, readers)
SELECT r.desk, r.kind, r.id, r.readers FROM unnest($1::text[], $2::smallint[], $3::text[], $4::bigint[]) AS r(desk, kind, id, readers)
ON CONFLICT DO NOTHING`

// ReindexProgress is told how a rebuild of the search index goes: done of total rows
// indexed so far, after each batch, from the first (done 0) to the last (done == total).
// It is called from the goroutine that opens the Store, inside the migration's
// transaction, which holds the schema's lock: it should return quickly.
type ReindexProgress func(done, total int64)

// WithReindexProgress has Open and New call f while they rebuild the search index (when a
// migration builds it anew, or transcript.Terms changed), so that a host can show how far
// a large store is. Without it, a rebuild reports nothing.
func WithReindexProgress(f ReindexProgress) Option {
	return func(s *Store) error {
		s.reindexProgress = f
		return nil
	}
}

// syncTerms rebuilds the search index in tx (rebuildTerms) unless transcript_terms_version
// names termsVersion already. tx is a migration's, at termsIndexVersion or later.
func syncTerms(ctx context.Context, tx pgx.Tx, progress ReindexProgress) error {
	var built string
	err := tx.QueryRow(ctx, `SELECT terms FROM transcript_terms_version`).Scan(&built)
	if err == nil && built == termsVersion {
		return nil
	}
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("read the search index's terms version: %w", err)
	}
	return rebuildTerms(ctx, tx, progress)
}

// rebuildTerms empties the search index and indexes every stored row again, in Go, in
// tx: each searchable row's terms (transcript.IndexTerms of it as stored), their keys and
// its reader set, reindexBatch rows at a time, reporting to progress (if not nil) after
// each batch; then records termsVersion and, when it indexed any row, analyzes the tables,
// so that the planner knows them from the first search on. A store without rows is left
// without statistics, as a new store is.
func rebuildTerms(ctx context.Context, tx pgx.Tx, progress ReindexProgress) error {
	if _, err := tx.Exec(ctx, `TRUNCATE transcript_terms, transcript_term_readers, transcript_terms_version`); err != nil {
		return fmt.Errorf("empty the search index: %w", err)
	}
	var total int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(sum(head), 0)::bigint FROM transcript_desks`).Scan(&total); err != nil {
		return fmt.Errorf("count the stored rows: %w", err)
	}
	if progress != nil {
		progress(0, total)
	}
	audiences := new(audienceCache)
	var (
		after     string
		seq, done int64
		indexed   int
	)
	for {
		rows, err := tx.Query(ctx, reindexRowsSQL, after, seq, reindexBatch)
		if err != nil {
			return fmt.Errorf("index the stored rows: %w", err)
		}
		var (
			desks, terms, keys     []string
			readers, seqs, parents []int64
			sets                   readerSets
			n                      int
		)
		for rows.Next() {
			var (
				m                transcript.Message
				parent, corrects int64
				kind             int16
				audience         []byte
			)
			if err := rows.Scan(&after, &seq, &parent, &kind, &m.Author.ID, &audience, &m.Content, &corrects, &m.Redacted); err != nil {
				rows.Close()
				return fmt.Errorf("index the stored rows: %w", err)
			}
			n++
			m.Author.Kind, m.Corrects = transcript.AuthorKind(kind), transcript.Sequence(corrects)
			t := indexTerms(&m)
			if t == "" {
				continue
			}
			if audience != nil {
				if m.Audience, err = audiences.decode(audience); err != nil {
					rows.Close()
					return fmt.Errorf("index the stored rows: the audience of row %d of desk %q: %v", seq, after, err)
				}
			}
			set := readerSetKey(&m)
			if set != 0 {
				sets.add(after, &m, set)
			}
			desks, readers, seqs, parents = append(desks, after), append(readers, set), append(seqs, seq), append(parents, parent)
			terms, keys = append(terms, t), append(keys, rowKeys(after, t, set))
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("index the stored rows: %w", err)
		}
		indexed += len(desks)
		if len(desks) > 0 {
			if _, err := tx.Exec(ctx, reindexTermsSQL, desks, readers, seqs, parents, terms, keys); err != nil {
				return fmt.Errorf("index the stored rows: %w", err)
			}
		}
		if len(sets.desks) > 0 {
			if _, err := tx.Exec(ctx, reindexReadersSQL, sets.desks, sets.kinds, sets.ids, sets.readers); err != nil {
				return fmt.Errorf("index the stored rows' reader sets: %w", err)
			}
		}
		done += int64(n)
		if n < reindexBatch {
			break
		}
		if progress != nil {
			progress(min(done, total), total)
		}
	}
	if progress != nil {
		progress(total, total)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO transcript_terms_version (terms) VALUES ($1)`, termsVersion); err != nil {
		return fmt.Errorf("record the search index's terms version: %w", err)
	}
	if indexed == 0 {
		return nil
	}
	if _, err := tx.Exec(ctx, "ANALYZE transcript_terms, transcript_term_readers"); err != nil {
		return fmt.Errorf("analyze the indexed rows: %w", err)
	}
	return nil
}
