package sqlitestore

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

var _ transcript.Searcher = (*deskLog)(nil)

// searchSQL finds one page of a search of the whole desk: the newest rows of desk ?1 (its
// id) that the FTS5 query ?2 finds (appendMatch: the query's terms in the tokens of the
// viewer's reader sets), below Seq ?3, at most ?5 of them; ?4 is 0 (searchRepliesSQL
// searches a thread); ?6 is the Store's workID, for the counts of its work. The index
// holds no correction, blank row or erased row (storage.IndexTerms gives them no
// terms), so those are never candidates. FTS5 walks the entries of the viewer's sets'
// tokens of the rarest term newest first (rowid DESC) and stops at the limit, each
// candidate joined to its row by id: no row of the desk is read that is not a match of
// every term, and no entry of a set the viewer is not in, nor of another desk, is read:
// those are other tokens. Within a desk, messages.id grows with seq (a desk's rows are
// inserted in order, each above every id the file holds), so rowid order is Seq order,
// and the bound on rowid is the bound row's id, looked up on the (desk, seq) key.
// searchEntryFunction counts each candidate FTS5 yields, searchRowFunction the bound row
// looked up and each row joined.
const searchSQL = `
SELECT ` + rowColumns + `
FROM message_terms AS t
JOIN messages AS m ON m.id = t.rowid
WHERE message_terms MATCH ?2
  AND ` + searchEntryFunction + `(?6, t.rowid)
  AND t.rowid < ` + searchBoundSQL + `
  AND ` + searchRowFunction + `(?6, m.id)
  AND m.desk = ?1
  AND m.seq < ?3
  AND ?4 = 0
ORDER BY t.rowid DESC
LIMIT ?5 + 0`

// searchBoundSQL is the id of the row of desk ?1 whose Seq is ?3, the bound of a search,
// looked up on the (desk, seq) key and counted (searchRowFunction), or above every id when
// the desk has no such row. SQLite evaluates it once a statement.
const searchBoundSQL = `ifnull((SELECT ` + searchRowFunction + `(?6, b.id) FROM messages AS b WHERE b.desk = ?1 AND b.seq = ?3), 9223372036854775807)`

// searchRepliesSQL is searchSQL within thread ?4 (not 0), for its replies: it walks the
// viewer's replies to ?4 newest first, the entries of the FTS5 query ?7 (appendThreadMatch:
// ?4's thread token in each of the viewer's reader sets), and probes the FTS5 index for each
// by its id with ?2 (a MATCH with a rowid constraint: FTS5 seeks the doclists of the
// viewer's tokens to that rowid), so that a common word in a small thread reads the thread,
// not every newer match of the desk; each reply that holds every term is joined to its row.
// The walk reads only the entries of the viewer's sets: the replies the viewer may not read
// are other tokens. searchEntryFunction counts each reply walked and each probe that finds
// its entry, searchRowFunction the bound row and each row joined. The thread's root,
// which holds no thread token of its own, is searchRootSQL's.
const searchRepliesSQL = `
SELECT ` + rowColumns + `
FROM message_terms AS t
JOIN messages AS m ON m.id = t.rowid
WHERE message_terms MATCH ?7
  AND ` + searchEntryFunction + `(?6, t.rowid)
  AND t.rowid < ` + searchBoundSQL + `
  AND t.rowid IN (SELECT rowid FROM message_terms WHERE message_terms MATCH ?2 AND rowid = t.rowid AND ` + searchEntryFunction + `(?6, rowid))
  AND ` + searchRowFunction + `(?6, m.id)
  AND m.desk = ?1
  AND m.seq < ?3
  AND m.parent = ?4
ORDER BY t.rowid DESC
LIMIT ?5 + 0`

// searchRootSQL finds the root of a search within thread ?4: the row of desk ?1 whose Seq
// is ?4, when it is below Seq ?3 and the FTS5 query ?2 (the query's terms in the tokens of
// the viewer's reader sets) finds it, the index probed by the row's id (a MATCH with a
// rowid constraint: FTS5 seeks the doclists of the viewer's tokens to that rowid). It reads
// one row of the (desk, seq) key, whatever row ?4 is, and counts it (searchRowFunction),
// and the entry the probe finds (searchEntryFunction). ?5 is not read.
const searchRootSQL = `
SELECT ` + rowColumns + ` FROM messages AS m
WHERE m.desk = ?1
  AND m.seq = ?4
  AND ` + searchRowFunction + `(?6, m.id)
  AND m.seq < ?3
  AND m.id IN (SELECT rowid FROM message_terms WHERE message_terms MATCH ?2 AND rowid = m.id AND ` + searchEntryFunction + `(?6, rowid))`

// The statements that find a search's desk by name and the reader sets its viewer reads
// (see Store.readerSetsOf): one row a set, or one row whose set is NULL, and none for a
// desk without rows. A viewer's are found on the membership key (desk, kind, ident), so
// that the read depends only on the viewer's own sets; the operator's are every set of
// the desk, on reader_sets' (desk, members) key.
const (
	viewerSetsSQL = `
SELECT d.id, r.reader_set FROM desks AS d
LEFT JOIN reader_set_members AS r ON r.desk = d.id AND r.kind = ?2 AND r.ident = ?3
WHERE d.name = ?1`
	allSetsSQL = `
SELECT d.id, r.id FROM desks AS d
LEFT JOIN reader_sets AS r ON r.desk = d.id
WHERE d.name = ?1`
)

// readerSetsOf returns the id of desk (0 for a desk without rows) and the reader sets
// viewer may read there, in tx, ascending: the public set, then those it belongs to (all the
// desk's for the operator, none for a viewer that fails Author.Validate).
func (s *Store) readerSetsOf(ctx context.Context, tx *sql.Tx, desk string, viewer transcript.Author) (int64, []int64, error) {
	var rows *sql.Rows
	var err error
	switch {
	case viewer.Validate() != nil:
		rows, err = tx.StmtContext(ctx, s.viewerSets).QueryContext(ctx, desk, 0, "") // kind 0: no member
	case viewer.Kind == transcript.KindOperator || s.searchEverySet:
		rows, err = tx.StmtContext(ctx, s.allSets).QueryContext(ctx, desk)
	default:
		rows, err = tx.StmtContext(ctx, s.viewerSets).QueryContext(ctx, desk, int64(viewer.Kind), viewer.ID)
	}
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	var id int64
	sets := []int64{publicReaderSet}
	for rows.Next() {
		var set sql.NullInt64
		if err := rows.Scan(&id, &set); err != nil {
			return 0, nil, err
		}
		if set.Valid {
			sets = append(sets, set.Int64)
		}
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	slices.Sort(sets)
	return id, slices.Compact(sets), nil
}

// SearchWork returns the work of the Store's searches since it opened, on every desk:
// the index entries read (the candidates the FTS5 index yielded: a thread's replies the
// walk reads among them; and the entry each probe of a reply's or the root's id finds)
// and the rows read (the rows a bound and a thread's
// root name, looked up on the (desk, seq) key, and every candidate joined to its row).
func (l *deskLog) SearchWork() (entries, rows int64) {
	return l.s.work.entries.Load(), l.s.work.rows.Load()
}

// Search implements transcript.Searcher: storage.PlanSearch checks q, then one query
// on the search index (searchSQL) finds the newest matches the viewer may read, at most
// the plan's limit and one more, ending early once their content reaches
// transcript.PageBytes; within a thread, the thread's replies (searchRepliesSQL), then,
// when the page has room, its root (searchRootSQL). SearchPlan.Result makes the page. Every row of the
// answer, and whether a next page exists, comes from rows the viewer may read. Once ctx is
// done Search returns an error matching ctx.Err().
func (l *deskLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return transcript.SearchResult{}, err
	}
	if l.s.closed.Load() {
		return transcript.SearchResult{}, ErrClosed
	}
	p, err := storage.PlanSearch(q)
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
	hits, refs, more, err := l.searchPage(ctx, p, bound, thread)
	if err == nil {
		err = l.s.resolveAuthors(ctx, hits, refs)
	}
	if err == nil {
		err = l.s.resolveAudiences(ctx, hits, refs)
	}
	if err != nil {
		return transcript.SearchResult{}, l.searchError(ctx, err)
	}
	// Every hit is one the viewer may read (its entry is of one of the viewer's sets) and
	// one a search finds (a correction rewrites its row's entries): the check keeps it so
	// should two tokens' 64 bits ever collide, or a process that removed a row's entries
	// have computed them with other term rules than the ones that wrote them.
	hits = slices.DeleteFunc(hits, func(m transcript.Message) bool { return !m.ReadableBy(p.Viewer) || !storage.Searchable(&m) })
	res := p.Result(hits)
	if more && res.Next == 0 && len(res.Messages) > 0 { // the scan stopped at PageBytes with older matches left
		res.Next = res.Messages[len(res.Messages)-1].Seq
	}
	return res, nil
}

// searchPage runs one search in one read transaction, so that the viewer's reader sets and
// the rows are read from one snapshot: readerSetsOf, then searchSQL or, within a thread
// (not 0), searchRepliesSQL and searchRootSQL, returning their rows without their authors and audiences, as
// scanPage does. The root is older than every reply, so it follows them, and is read only
// when the replies leave room for it. The transaction ends before it returns, so that
// resolving the ids can take a reader connection even from a pool of one.
func (l *deskLog) searchPage(ctx context.Context, p storage.SearchPlan, bound, thread int64) ([]transcript.Message, []rowRefs, bool, error) {
	tx, err := l.s.readers.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, nil, false, err
	}
	defer tx.Rollback() // a read: nothing to commit
	desk, sets, err := l.s.readerSetsOf(ctx, tx, l.desk, p.Viewer)
	if err != nil || desk == 0 {
		return nil, nil, false, err
	}
	var h tokenHasher
	match := h.appendMatch(nil, l.s.searchKey, desk, sets, p.Terms)
	args := []any{desk, string(match), bound, thread, p.Limit + 1, l.s.workID}
	stmt := l.s.search
	if thread != 0 {
		stmt = l.s.searchReplies
		args = append(args, string(h.appendThreadMatch(match[:0], l.s.searchKey, desk, sets, thread)))
	}
	rows, err := tx.StmtContext(ctx, stmt).QueryContext(ctx, args...)
	if err != nil {
		return nil, nil, false, err
	}
	hits, refs, more, err := scanPage(rows, make([]transcript.Message, 0, p.Limit+1), make([]rowRefs, 0, p.Limit+1), transcript.PageBytes)
	if thread == 0 || err != nil || more || len(hits) > p.Limit {
		return hits, refs, more, err
	}
	if rows, err = tx.StmtContext(ctx, l.s.searchRoot).QueryContext(ctx, args[:6]...); err != nil {
		return nil, nil, false, err
	}
	used := 0
	for _, m := range hits {
		used += len(m.Content)
	}
	if used >= transcript.PageBytes { // the root would start the next page
		root, _, _, err := scanPage(rows, nil, nil, 0)
		return hits, refs, len(root) > 0, err
	}
	return scanPage(rows, hits, refs, transcript.PageBytes-used)
}

// searchError wraps a failed search, naming the desk and never the text; when ctx is done,
// the error matches ctx.Err().
func (l *deskLog) searchError(ctx context.Context, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("sqlitestore: desk %q: search: %w (%v)", l.desk, ctxErr, err)
	}
	return fmt.Errorf("sqlitestore: desk %q: search: %w", l.desk, err)
}
