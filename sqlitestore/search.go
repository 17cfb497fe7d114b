package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"

	"github.com/sharedesk/transcript"
)

var _ transcript.Searcher = (*deskLog)(nil)

// searchSQL finds one page of a search: the newest rows of desk ?1 that hold every term of
// the JSON array ?2, below Seq ?3, in thread ?4 (0: the whole desk), that the viewer may
// read, at most ?8 of them. The FTS5 query is the terms as the desk's entries hold them
// (the desk's id, "_", the term), each a quoted string, its quotes doubled (though no term
// holds one), so that FTS5 reads it as one token and no term is an operator, all ANDed; a
// desk without rows has id 0, which no entry's tokens begin with. The index holds no
// correction, blank row or erased row (transcript.IndexTerms gives them no terms), so
// those are never candidates. FTS5 walks the desk's entries of the rarest term newest
// first (rowid DESC) and stops at the limit, each candidate joined to its row by id: no
// row of the desk is read that is not a match of every term, and other desks' entries are
// other tokens, never read. Within a desk, messages.id grows with seq (a desk's rows are
// inserted in order, each above every id the file holds), so rowid order is Seq order,
// and the bound on rowid is the bound row's id.
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
WHERE message_terms MATCH ` + searchMatch + `
  AND t.rowid < ifnull((SELECT b.id FROM messages AS b WHERE b.desk = (SELECT id FROM desks WHERE name = ?1) AND b.seq = ?3), 9223372036854775807)
  AND m.desk = (SELECT id FROM desks WHERE name = ?1)
  AND m.seq < ?3
  AND (?4 = 0 OR m.seq = ?4 OR m.parent = ?4)
  AND ` + searchReadable + `
ORDER BY t.rowid DESC
LIMIT ?8 + 0`

// searchMatch is searchSQL's FTS5 query, from the desk's name ?1 and the terms ?2.
const searchMatch = `(
        SELECT group_concat('"' || ifnull((SELECT id FROM desks WHERE name = ?1), 0) || '_' || replace(value, '"', '""') || '"', ' AND ')
        FROM json_each(?2))`

// searchReadable is the condition that row m is one the viewer (?5, ?6, ?7) may read.
const searchReadable = `(m.audience IS NULL
       OR ?5
       OR m.author IN (SELECT id FROM authors WHERE kind = ?6 AND ident = ?7)
       OR m.audience IN (SELECT a.id FROM audiences AS a, json_each(a.members) AS e
                         WHERE e.value ->> 'kind' = ?6 AND e.value ->> 'ident' = ?7))`

// searchThreadSQL is searchSQL within thread ?4 (not 0), driven from the thread's rows
// instead of the desk's matches, so that a common word in a small thread reads the
// thread, not every newer match of the desk: the replies of ?4 newest first on the
// (desk, parent, seq) index, then row ?4 itself (older than every reply), each probed in
// the FTS5 index by its id (a MATCH with a rowid constraint: FTS5 seeks each term's
// doclist to that rowid), its readability and the bound checked as in searchSQL. The
// two parts merge in Seq order and stop at the limit.
const searchThreadSQL = searchThreadRows + `m.parent = ?4
UNION ALL
` + searchThreadRows + `m.seq = ?4
ORDER BY seq DESC
LIMIT ?8 + 0`

// searchThreadRows is one part of searchThreadSQL: the rows of desk ?1 below Seq ?3 that
// hold every term and that the viewer may read, and, as the condition that follows it
// says, are the thread's replies or its root.
const searchThreadRows = `
SELECT ` + rowColumns + ` FROM messages AS m
WHERE m.desk = (SELECT id FROM desks WHERE name = ?1)
  AND m.seq < ?3
  AND m.id IN (SELECT rowid FROM message_terms WHERE message_terms MATCH ` + searchMatch + ` AND rowid = m.id)
  AND ` + searchReadable + `
  AND `

// Search implements transcript.Searcher: transcript.PlanSearch checks q, then one query
// (searchSQL, or searchThreadSQL within a thread) on the search index finds the newest matches the viewer may read, at most
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
	terms, err := json.Marshal(p.Terms)
	if err != nil {
		return transcript.SearchResult{}, l.searchError(ctx, err)
	}
	_, stmt := l.s.searchFor(thread)
	rows, err := stmt.QueryContext(ctx, l.desk, string(terms), bound, thread, operator, kind, v.ID, p.Limit+1)
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

// searchFor returns the query of a search within thread (0: the whole desk) and its
// prepared statement: within a thread, searchThreadSQL walks the thread's rows.
func (s *Store) searchFor(thread int64) (string, *sql.Stmt) {
	if thread != 0 {
		return searchThreadSQL, s.searchThread
	}
	return searchSQL, s.search
}

// searchError wraps a failed search, naming the desk and never the text; when ctx is done,
// the error matches ctx.Err().
func (l *deskLog) searchError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("sqlitestore: desk %q: search: %w (%v)", l.desk, ctxErr, err)
	}
	return fmt.Errorf("sqlitestore: desk %q: search: %w", l.desk, err)
}
