package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
)

var _ transcript.Searcher = (*deskLog)(nil)

// The search index's statements (message_terms: see migrations/009_search.sql). Entries
// are written from a JSON array of [id, entry] pairs, one statement for a row or a chunk
// of a batch; a row's entry is deleted by its rowid.
const (
	indexSQL   = `INSERT INTO message_terms (rowid, terms) SELECT value ->> 0, value ->> 1 FROM json_each(?1)`
	unindexSQL = `DELETE FROM message_terms WHERE rowid = ?1`
)

// searchSQL finds one page of a search: the newest rows of desk ?1 whose entry holds every
// term of the FTS5 query ?2 (the desk's token and the terms, each quoted), below Seq ?3, in
// thread ?4 (0: the whole desk), that the viewer may read, at most ?8 of them. The index
// holds no correction, blank row or erased row (transcript.IndexTerms gives them no
// terms), so those are never candidates. FTS5 walks the entries of the rarest token
// newest first (rowid DESC) and stops at the limit, each candidate joined to its row by
// id: no row of the desk is read that is not a match of every term. Within a desk,
// messages.id grows with seq (a desk's rows are inserted in order, each above every id
// the file holds), so rowid order is Seq order, and the bound on rowid is the bound row's
// id. The desk's token leaves other desks' entries out inside FTS5, so a large desk's
// matches cost a small desk's search only FTS5's skipping over their doclists.
//
// Readability is decided here, from the viewer's identity (?5: the viewer is the operator;
// ?6 and ?7: its kind and ident, kind 0 for a viewer that fails Author.Validate, which no
// authors or audiences row holds): a desk row (audience NULL), or an aside its viewer
// wrote or is listed in. The sets of the viewer's authors and audiences rows are
// subqueries SQLite evaluates once a search.
const searchSQL = `
SELECT ` + rowColumns + `
FROM message_terms AS t
JOIN messages AS m ON m.id = t.rowid
WHERE message_terms MATCH '"_' || ifnull((SELECT id FROM desks WHERE name = ?1), 0) || '" ' || ?2
  AND t.rowid < ifnull((SELECT b.id FROM messages AS b WHERE b.desk = (SELECT id FROM desks WHERE name = ?1) AND b.seq = ?3), 9223372036854775807)
  AND m.desk = (SELECT id FROM desks WHERE name = ?1)
  AND m.seq < ?3
  AND (?4 = 0 OR m.seq = ?4 OR m.parent = ?4)
  AND (m.audience IS NULL
       OR ?5
       OR m.author IN (SELECT id FROM authors WHERE kind = ?6 AND ident = ?7)
       OR m.audience IN (SELECT a.id FROM audiences AS a, json_each(a.members) AS e
                         WHERE e.value ->> 'kind' = ?6 AND e.value ->> 'ident' = ?7))
ORDER BY t.rowid DESC
LIMIT ?8 + 0`

// Search implements transcript.Searcher: transcript.PlanSearch checks q, then one query
// (searchSQL) on the search index finds the newest matches the viewer may read, at most
// the plan's limit and one more, ending early once their content reaches
// transcript.PageBytes; SearchPlan.Result makes the page. Every row of the answer, and
// whether a next page exists, comes from rows the viewer may read. Once ctx is done Search
// returns an error matching ctx.Err().
func (l *deskLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return transcript.SearchResult{}, err
	}
	if l.s.closed.Load() {
		return transcript.SearchResult{}, ErrClosed
	}
	p, err := transcript.PlanSearch(q)
	if err != nil {
		return transcript.SearchResult{}, err
	}
	bound := int64(math.MaxInt64) // above every stored Seq
	if p.Before != 0 && p.Before < math.MaxInt64 {
		bound = int64(p.Before)
	}
	thread := int64(p.Thread)
	if p.Thread > math.MaxInt64 {
		thread = -1 // no row's Seq or Parent
	}
	var kind int64 // 0: reads desk rows only
	v := p.Viewer
	if v.Validate() == nil {
		kind = int64(v.Kind)
	}
	operator := kind == int64(transcript.KindOperator)
	rows, err := l.s.search.QueryContext(ctx, l.desk, matchTerms(p.Terms), bound, thread, operator, kind, v.ID, p.Limit+1)
	if err != nil {
		return transcript.SearchResult{}, l.searchError(ctx, err)
	}
	hits, refs, more, err := scanPage(rows, make([]transcript.Message, 0, p.Limit+1), make([]rowRefs, 0, p.Limit+1), transcript.PageBytes)
	if err == nil {
		err = l.s.resolveAuthors(ctx, hits, refs)
	}
	if err == nil {
		err = l.s.resolveAudiences(ctx, hits, refs)
	}
	if err != nil {
		return transcript.SearchResult{}, l.searchError(ctx, err)
	}
	res := p.Result(hits)
	if more && res.Next == 0 { // the scan stopped at PageBytes with older matches left
		res.Next = res.Messages[len(res.Messages)-1].Seq
	}
	return res, nil
}

// matchTerms returns the FTS5 query that holds every one of terms: each a quoted string
// (its quotes doubled, though no term holds one), so that FTS5 reads it as one token and
// no term is an operator, all of them ANDed.
func matchTerms(terms []string) string {
	var b strings.Builder
	for i, t := range terms {
		if i > 0 {
			b.WriteString(" AND ")
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(t, `"`, `""`))
		b.WriteByte('"')
	}
	return b.String()
}

// searchError wraps a failed search, naming the desk and never the text; when ctx is done,
// the error matches ctx.Err().
func (l *deskLog) searchError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("sqlitestore: desk %q: search: %w (%v)", l.desk, ctxErr, err)
	}
	return fmt.Errorf("sqlitestore: desk %q: search: %w", l.desk, err)
}

// appendEntry appends to list, a JSON array being written, the pair [id, entry] of the row
// whose messages.id is id, of desk, when transcript.IndexTerms gives m terms; it reports
// whether it did. The entry is the desk's token, "_" and its id, then the terms, joined by
// single spaces.
func appendEntry(list []byte, desk, id int64, m *transcript.Message) ([]byte, bool) {
	terms := transcript.IndexTerms(m)
	if len(terms) == 0 {
		return list, false
	}
	if len(list) > 1 {
		list = append(list, ',')
	}
	list = append(list, '[')
	list = strconv.AppendInt(list, id, 10)
	list = append(list, `,"_`...)
	list = strconv.AppendInt(list, desk, 10)
	for _, t := range terms {
		list = append(list, ' ')
		list = appendJSONText(list, t)
	}
	return append(list, `"]`...), true
}

// appendJSONText appends t to a JSON string being written: as it is, unless it holds a
// byte JSON escapes (a term holds none: letters, digits and marks only).
func appendJSONText(b []byte, t string) []byte {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < 0x20 || c == '"' || c == '\\' {
			q, _ := json.Marshal(t) // a string always marshals
			return append(b, q[1:len(q)-1]...)
		}
	}
	return append(b, t...)
}

// index writes the search index's entries of rows, the new rows of the transaction's desk
// whose messages.id are first, first+1, ..., in one statement.
func (w *writeTx) index(ctx context.Context, first int64, rows []transcript.Message) error {
	if w.s.skipIndex {
		return nil
	}
	list := append(w.entries[:0], '[')
	some := false
	for i := range rows {
		var added bool
		list, added = appendEntry(list, w.desk, first+int64(i), &rows[i])
		some = some || added
	}
	w.entries = list
	if !some {
		return nil
	}
	list = append(list, ']')
	if _, err := w.tx.StmtContext(ctx, w.s.indexStmt).ExecContext(ctx, string(list)); err != nil {
		return fmt.Errorf("indexing rows %d to %d: %w", rows[0].Seq, rows[len(rows)-1].Seq, err)
	}
	return nil
}

// reindex replaces the search index's entry of the row whose messages.id is id with that of
// its content now, after a correction: an edit's new words, and none for an erased row.
// Secure-delete removes the old entry's words from the index's pages.
func (w *writeTx) reindex(ctx context.Context, id int64, r transcript.Revision) error {
	if w.s.skipIndex {
		return nil
	}
	if _, err := w.tx.StmtContext(ctx, w.s.unindex).ExecContext(ctx, id); err != nil {
		return fmt.Errorf("unindexing row %d: %w", r.Target, err)
	}
	return w.index(ctx, id, []transcript.Message{{Seq: r.Target, Content: r.Content, Redacted: r.Redacted}})
}

// Bounds of one chunk of the migration that indexes the rows a file holds: rows and bytes
// of content, so that a desk of millions of rows is indexed in bounded memory.
const (
	indexChunkRows  = 2048
	indexChunkBytes = 16 << 20
)

// indexStoredRows is migration 9's Go step: it writes the search index's entry of every row
// tx's file holds, with transcript.IndexTerms, in chunks read in id order.
func indexStoredRows(ctx context.Context, tx *sql.Tx) error {
	var after int64
	for {
		next, err := indexChunk(ctx, tx, after)
		if err != nil || next == after {
			return err
		}
		after = next
	}
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
	last, bytes, some := after, 0, false
	for bytes < indexChunkBytes && rows.Next() {
		var (
			id, desk, corrects int64
			m                  transcript.Message
		)
		if err := rows.Scan(&id, &desk, &m.Content, &corrects, &m.Redacted); err != nil {
			return after, fmt.Errorf("reading the rows to index: %w", err)
		}
		m.Corrects = transcript.Sequence(corrects)
		var added bool
		list, added = appendEntry(list, desk, id, &m)
		some = some || added
		last, bytes = id, bytes+len(m.Content)
	}
	if err := rows.Err(); err != nil {
		return after, fmt.Errorf("reading the rows to index: %w", err)
	}
	if err := rows.Close(); err != nil || !some {
		return last, err
	}
	if _, err := tx.ExecContext(ctx, indexSQL, string(append(list, ']'))); err != nil {
		return after, fmt.Errorf("indexing the rows after id %d: %w", after, err)
	}
	return last, nil
}
