package sqlitestore

// The search index (message_terms: see migrations/009_search.sql): its entries, written in
// the transaction of every append, changed by corrections in theirs, and written for the
// rows a file holds by migration 9.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
)

// The search index's statements (message_terms: see migrations/009_search.sql). An entry
// is written by its id and text (one row's by indexOneSQL, a batch's by indexListSQL from
// a JSON array of the entries of rows of consecutive ids from ?2, "" for a row without
// one, and the migration's from a JSON array of [id, entry] pairs), and deleted by its id
// and text as written.
const (
	indexSQL     = `INSERT INTO message_terms (rowid, terms) SELECT value ->> 0, value ->> 1 FROM json_each(?1)`
	indexListSQL = `INSERT INTO message_terms (rowid, terms) SELECT ?2 + key, value FROM json_each(?1) WHERE value <> ''`
	indexOneSQL  = `INSERT INTO message_terms (rowid, terms) VALUES (?1, ?2)`
	unindexSQL   = `INSERT INTO message_terms (message_terms, rowid, terms) VALUES ('delete', ?1, ?2)`
	// targetSQL reads a correction's target, before the correction changes it, on the
	// (desk, seq) index: its id and what its entry was computed from.
	targetSQL = `SELECT id, content, corrects, redacted FROM messages WHERE desk = ?1 AND seq = ?2`
)

// appendEntry appends to list, a JSON array being written, the pair [id, entry] of the row
// whose messages.id is id, of desk, when terms is not empty.
func appendEntry(list []byte, desk, id int64, terms []string) []byte {
	if len(list) > 1 {
		list = append(list, ',')
	}
	list = append(list, '[')
	list = strconv.AppendInt(list, id, 10)
	list = append(list, ',', '"')
	list = appendTerms(list, desk, terms, appendJSONText)
	return append(list, `"]`...)
}

// appendTerms appends to b the entry of a row of desk whose terms are terms: each term as
// the desk's id, "_" and the term written by text, joined by single spaces.
func appendTerms(b []byte, desk int64, terms []string, text func([]byte, string) []byte) []byte {
	for i, t := range terms {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, desk, 10)
		b = append(b, '_')
		b = text(b, t)
	}
	return b
}

// appendJSONText appends t to a JSON string being written: as it is, unless it holds a
// byte JSON escapes (an entry holds none: letters, digits, marks, "_" and spaces only).
func appendJSONText[T string | []byte](b []byte, t T) []byte {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < 0x20 || c == '"' || c == '\\' {
			q, _ := json.Marshal(string(t)) // a string always marshals
			return append(b, q[1:len(q)-1]...)
		}
	}
	return append(b, t...)
}

// indexListBytes bounds the entries index queues for one statement, so that a batch of
// millions of rows is indexed in bounded memory.
const indexListBytes = 16 << 20

// index queues the search index's entries of rows, the new rows of the transaction's desk
// whose messages.id are first, first+1, ..., and flushIndex writes them: in one statement
// (indexListSQL), from a JSON array of one string a row of consecutive ids, the row's entry
// or "" when it has none. One statement, because SQLite has FTS5 write the entries it
// holds as a segment of their own at the start of every statement of many rows in the
// transaction: entries written in many INSERTs (or between a batch's INSERTs of rows)
// made many small segments a batch, and merging them again cost more than writing them.
func (w *writeTx) index(ctx context.Context, first int64, rows []transcript.Message) error {
	if w.s.skipIndex {
		return nil
	}
	if w.queued > 0 && first != w.firstID+int64(w.queued) {
		if err := w.flushIndex(ctx); err != nil {
			return err
		}
	}
	for i := range rows {
		w.entries = appendTerms(w.entries[:0], w.desk, transcript.IndexTerms(&rows[i]), appendText)
		if w.queued == 0 {
			w.list, w.firstID = append(w.list[:0], '['), first+int64(i)
		} else {
			w.list = append(w.list, ',')
		}
		w.list = append(appendJSONText(append(w.list, '"'), w.entries), '"')
		w.queued++
		if len(w.list) >= indexListBytes {
			if err := w.flushIndex(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushIndex writes the entries index queued: one row's by the prepared indexOne (an
// INSERT of one row, which starts no segment), others by indexListSQL.
func (w *writeTx) flushIndex(ctx context.Context) error {
	var err error
	switch {
	case w.queued == 0:
		return nil
	case w.queued > 1:
		_, err = w.tx.ExecContext(ctx, indexListSQL, string(append(w.list, ']')), w.firstID)
	case len(w.entries) > 0: // the one row's entry, as index left it
		_, err = w.tx.StmtContext(ctx, w.s.indexOne).ExecContext(ctx, w.firstID, string(w.entries))
	}
	if err != nil {
		return fmt.Errorf("indexing %d rows: %w", w.queued, err)
	}
	w.queued = 0
	return nil
}

// unindex deletes the search index's entry of row seq of the transaction's desk, before a
// correction changes the row, and returns the row's id. The entry is computed again from
// the row's content as stored, as index computed it (the index's terms are the running
// program's: see termsVersion); FTS5's secure-delete removes its tokens from the index's
// pages.
func (w *writeTx) unindex(ctx context.Context, seq transcript.Sequence) (int64, error) {
	var (
		id, corrects int64
		m            transcript.Message
	)
	if err := w.tx.StmtContext(ctx, w.s.target).QueryRowContext(ctx, w.desk, int64(seq)).Scan(&id, &m.Content, &corrects, &m.Redacted); err != nil {
		return 0, fmt.Errorf("reading row %d: %w", seq, err)
	}
	m.Corrects = transcript.Sequence(corrects)
	terms := transcript.IndexTerms(&m)
	if w.s.skipIndex || len(terms) == 0 {
		return id, nil
	}
	w.entries = appendTerms(w.entries[:0], w.desk, terms, appendText)
	if _, err := w.tx.StmtContext(ctx, w.s.unindexStmt).ExecContext(ctx, id, string(w.entries)); err != nil {
		return 0, fmt.Errorf("unindexing row %d: %w", seq, err)
	}
	return id, nil
}

// appendText appends t to b as it is.
func appendText(b []byte, t string) []byte { return append(b, t...) }

// Bounds of one chunk of the migration that indexes the rows a file holds: rows and bytes
// of content, so that a desk of millions of rows is indexed in bounded memory.
const (
	indexChunkRows  = 2048
	indexChunkBytes = 16 << 20
)

// termsVersion names the rules and tables transcript.Terms computes terms with: the
// revision of its rules (2: runs of Han, Hiragana, Katakana and Hangul read as words of one
// and two characters), Go's Unicode tables (scripts, letters, digits, marks, lower case)
// and x/text's normalization tables. The same content gives the same terms while they stay
// the same.
var termsVersion = "terms 2, unicode " + unicode.Version + ", norm " + norm.Version

// searchIndexVersion is the search index's schema version: the first that has it.
const searchIndexVersion = 9

// indexStoredRows is migration 9's Go step, and the rebuild of the search index when its
// terms were computed with other tables than termsVersion's (syncTermsVersion): it deletes
// every entry, then writes the entry of every row tx's file holds, with
// transcript.IndexTerms, in chunks read in id order, and records termsVersion.
func indexStoredRows(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`INSERT INTO message_terms (message_terms) VALUES ('delete-all')`,
		`DELETE FROM message_terms_version`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("emptying the search index: %w", err)
		}
	}
	var after int64
	for {
		next, err := indexChunk(ctx, tx, after)
		if err != nil {
			return err
		}
		if next == after {
			break
		}
		after = next
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO message_terms_version (version) VALUES (?1)`, termsVersion); err != nil {
		return fmt.Errorf("recording the search index's terms version: %w", err)
	}
	return nil
}

// syncTermsVersion rebuilds the search index of tx's file, at searchIndexVersion or later,
// when its entries were computed with other Unicode tables than the running program's
// (after an upgrade of Go or x/text), so that every entry is what index and unindex
// compute for its row now: a stale one could not be deleted, and would go on matching its
// row's old words.
func syncTermsVersion(ctx context.Context, tx *sql.Tx) error {
	var version string
	err := tx.QueryRowContext(ctx, `SELECT version FROM message_terms_version`).Scan(&version)
	if err == nil && version == termsVersion {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("reading the search index's terms version: %w", err)
	}
	return indexStoredRows(ctx, tx)
}

// indexChunk indexes the rows whose id is above after, up to indexChunkRows of them or
// indexChunkBytes of content, and returns the last id it read (after, when none is left).
func indexChunk(ctx context.Context, tx *sql.Tx, after int64) (int64, error) {
	rows, err := tx.QueryContext(ctx, `
SELECT id, desk, content, corrects, redacted FROM messages WHERE id > ?1 ORDER BY id LIMIT ?2`, after, indexChunkRows)
	if err != nil {
		return after, fmt.Errorf("reading the rows to index: %w", err)
	}
	defer rows.Close()
	list := []byte{'['}
	last, bytes := after, 0
	for bytes < indexChunkBytes && rows.Next() {
		var (
			id, desk, corrects int64
			m                  transcript.Message
		)
		if err := rows.Scan(&id, &desk, &m.Content, &corrects, &m.Redacted); err != nil {
			return after, fmt.Errorf("reading the rows to index: %w", err)
		}
		m.Corrects = transcript.Sequence(corrects)
		if terms := transcript.IndexTerms(&m); len(terms) > 0 {
			list = appendEntry(list, desk, id, terms)
		}
		last, bytes = id, bytes+len(m.Content)
	}
	if err := rows.Err(); err != nil {
		return after, fmt.Errorf("reading the rows to index: %w", err)
	}
	if err := rows.Close(); err != nil || len(list) == 1 {
		return last, err
	}
	if _, err := tx.ExecContext(ctx, indexSQL, string(append(list, ']'))); err != nil {
		return after, fmt.Errorf("indexing the rows after id %d: %w", after, err)
	}
	return last, nil
}
