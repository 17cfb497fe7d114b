package pgstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"unicode"

	"github.com/jackc/pgx/v5"
	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// termsVersion names the rules and tables storage.Terms computes terms with: the
// revision of its rules (2: runs of Han, Hiragana, Katakana and Hangul read as words of one
// and two characters, as sqlitestore's termsVersion says), Go's Unicode tables (scripts,
// letters, digits, marks, lower case) and x/text's normalization tables. The same content
// gives the same terms while they stay the same; the index is rebuilt when they change
// (syncTerms).
var termsVersion = "terms 2, unicode " + unicode.Version + ", norm " + norm.Version

// termsIndexVersion is the first schema version whose search index syncTerms keeps: the
// one keyed by desk and reader set.
const termsIndexVersion = 9

// reindexBatch is how many rows rebuildTerms reads and indexes at a time, so that a large
// table is indexed in bounded memory.
const reindexBatch = 5000

// reindexRowsSQL reads, in (desk, seq) order after ($1, $2), up to $3 rows with what
// storage.IndexTerms and the reader set read of them: the primary key's order, walked
// from where the last batch ended.
const reindexRowsSQL = `
SELECT desk, seq, parent, author_kind, author_id, audience, content, coalesce(corrects, 0), coalesce(redacted, false)
FROM transcript_messages
WHERE (desk, seq) > ($1, $2)
ORDER BY desk, seq
LIMIT $3`

// reindexColumns are the columns of transcript_terms rebuildTerms copies into it.
var reindexColumns = []string{"desk", "readers", "seq", "parent", "terms", "keys"}

// reindexReadersSQL is insertReadersSQL for rows of several desks ($1).
const reindexReadersSQL = `
INSERT INTO transcript_term_readers (desk, kind, id, readers)
SELECT r.desk, r.kind, r.id, r.readers FROM unnest($1::text[], $2::smallint[], $3::text[], $4::bigint[]) AS r(desk, kind, id, readers)
ON CONFLICT DO NOTHING`

// termsIndexesSQL lists transcript_terms' indexes but its primary key: each one's name, as
// DROP INDEX takes it, and the statement that creates it.
const termsIndexesSQL = `
SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
FROM pg_index AS i
WHERE i.indrelid = 'transcript_terms'::regclass AND NOT i.indisprimary
ORDER BY 1`

// IndexProgress is told how a rebuild of the search index goes: done of total rows
// indexed so far, after each batch, from the first (done 0) to the last (done == total);
// never for a store that holds no row.
// It is called from the goroutine that opens the Store, inside the migration's
// transaction, which holds the schema's lock: it should return quickly.
type IndexProgress func(done, total int64)

// WithIndexProgress has Open and New call f while they rebuild the search index (when a
// migration builds it anew, or storage.Terms changed), so that a host can show how far
// a large store is. Without it, a rebuild reports nothing.
func WithIndexProgress(f IndexProgress) Option {
	return func(s *Store) error {
		s.indexProgress = f
		return nil
	}
}

// syncTerms rebuilds the search index in tx (rebuildTerms) unless transcript_terms_version
// names termsVersion already. tx is a migration's, at termsIndexVersion or later.
func syncTerms(ctx context.Context, tx pgx.Tx, progress IndexProgress) error {
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
// tx: each searchable row's terms (storage.IndexTerms of it as stored), their keys and
// its reader set, reindexBatch rows at a time, reporting to progress (if not nil) after
// each batch; the terms' indexes but the primary key are dropped meanwhile and built again
// after, at once, which costs less than keeping them row by row. It then records
// termsVersion and, when it indexed any row, analyzes the tables, so that the planner
// knows them from the first search on. A store without rows is left without statistics,
// as a new store is.
func rebuildTerms(ctx context.Context, tx pgx.Tx, progress IndexProgress) error {
	if _, err := tx.Exec(ctx, `TRUNCATE transcript_terms, transcript_term_readers, transcript_terms_version`); err != nil {
		return fmt.Errorf("empty the search index: %w", err)
	}
	// Each batch's read is planned with its bounds, so that it is a range of the primary
	// key, never a generic plan that sorts the table.
	if _, err := tx.Exec(ctx, `SET LOCAL plan_cache_mode = force_custom_plan`); err != nil {
		return fmt.Errorf("index the stored rows: %w", err)
	}
	indexes, err := dropTermsIndexes(ctx, tx)
	if err != nil {
		return err
	}
	key, err := ensureSearchKey(ctx, tx)
	if err != nil {
		return err
	}
	indexed, err := fillTerms(ctx, tx, key, progress)
	if err != nil {
		return err
	}
	for _, create := range indexes {
		if _, err := tx.Exec(ctx, create); err != nil {
			return fmt.Errorf("build the search index: %w", err)
		}
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

// dropTermsIndexes drops transcript_terms' indexes but its primary key, in tx, and returns
// the statements that create them again.
func dropTermsIndexes(ctx context.Context, tx pgx.Tx) ([]string, error) {
	rows, err := tx.Query(ctx, termsIndexesSQL)
	if err != nil {
		return nil, fmt.Errorf("list the search index's indexes: %w", err)
	}
	var names, creates []string
	for rows.Next() {
		var name, create string
		if err := rows.Scan(&name, &create); err != nil {
			rows.Close()
			return nil, fmt.Errorf("list the search index's indexes: %w", err)
		}
		names, creates = append(names, name), append(creates, create)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list the search index's indexes: %w", err)
	}
	for _, name := range names {
		if _, err := tx.Exec(ctx, "DROP INDEX "+name); err != nil {
			return nil, fmt.Errorf("drop the search index's index %s: %w", name, err)
		}
	}
	return creates, nil
}

// ensureSearchKey returns the store's searchKey, which it makes in tx when the store has
// none yet: 32 bytes from crypto/rand. A key once made is kept, so that every process of
// the store computes the same keys.
func ensureSearchKey(ctx context.Context, tx pgx.Tx) (searchKey, error) {
	fresh := make([]byte, 32)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("make the search index's key: %w", err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO transcript_search_key (key) SELECT $1 WHERE NOT EXISTS (SELECT FROM transcript_search_key)`, fresh); err != nil {
		return nil, fmt.Errorf("keep the search index's key: %w", err)
	}
	var key []byte
	if err := tx.QueryRow(ctx, `SELECT key FROM transcript_search_key`).Scan(&key); err != nil {
		return nil, fmt.Errorf("read the search index's key: %w", err)
	}
	return key, nil
}

// fillTerms indexes every stored row (rebuildTerms) into the empty tables, and returns how
// many rows it gave terms.
func fillTerms(ctx context.Context, tx pgx.Tx, key searchKey, progress IndexProgress) (int, error) {
	var total int64
	if err := tx.QueryRow(ctx, `SELECT coalesce(sum(head), 0)::bigint FROM transcript_desks`).Scan(&total); err != nil {
		return 0, fmt.Errorf("count the stored rows: %w", err)
	}
	if progress != nil && total > 0 { // a new, empty database has nothing to rebuild
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
			return 0, fmt.Errorf("index the stored rows: %w", err)
		}
		var (
			copied [][]any
			sets   readerSets
			n      int
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
				return 0, fmt.Errorf("index the stored rows: %w", err)
			}
			n++
			m.Author.Kind, m.Corrects = transcript.AuthorKind(kind), transcript.Sequence(corrects)
			terms := storage.IndexTerms(&m)
			if len(terms) == 0 {
				continue
			}
			if audience != nil {
				if m.Audience, err = audiences.decode(audience); err != nil {
					rows.Close()
					return 0, fmt.Errorf("index the stored rows: the audience of row %d of desk %q: %v", seq, after, err)
				}
			}
			set := key.readerSetKey(&m)
			if set != 0 {
				sets.add(after, &m, set)
			}
			keys := key.termKeys(after, terms)
			for i := range keys {
				keys[i] ^= set
			}
			copied = append(copied, []any{after, set, seq, parent, terms, keys})
		}
		if err := rows.Err(); err != nil {
			return 0, fmt.Errorf("index the stored rows: %w", err)
		}
		indexed += len(copied)
		if len(copied) > 0 {
			if _, err := tx.CopyFrom(ctx, pgx.Identifier{"transcript_terms"}, reindexColumns, pgx.CopyFromRows(copied)); err != nil {
				return 0, fmt.Errorf("index the stored rows: %w", err)
			}
		}
		if len(sets.desks) > 0 {
			if _, err := tx.Exec(ctx, reindexReadersSQL, sets.desks, sets.kinds, sets.ids, sets.readers); err != nil {
				return 0, fmt.Errorf("index the stored rows' reader sets: %w", err)
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
	if progress != nil && total > 0 {
		progress(total, total)
	}
	return indexed, nil
}
