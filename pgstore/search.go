package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

var _ transcript.Searcher = (*deskLog)(nil)

// searchRecentRows is how many of a desk's newest rows below a search's bound searchSQL
// reads in order before it looks further: enough to find a common word's page among them
// (a word in one row in 200), few enough to read in a few milliseconds.
const searchRecentRows = 1024

// searchRecentWindows are the windows of searchSQL's recent rows, newest first, as the
// distances below the bound of their lowest seq and of the one above their highest: a
// common word's page is found in the first, of 64 rows, without reading the rest of the
// newest 1,024 in a set that holds it rarely.
var searchRecentWindows = fmt.Sprintf("(%d, 0), (%d, %d), (%d, %d)", searchRecentRows/16, searchRecentRows/4, searchRecentRows/16, searchRecentRows, searchRecentRows/4)

// searchProbeRows is how many rows of one reader set of the desk holding a search's terms
// the GIN index may return for searchSQL to sort them: a rare word's older rows. More, and
// the word is common: searchSQL walks the viewer's older rows in windows instead.
const searchProbeRows = 4096

// searchColumns are messageColumnList of transcript_messages AS m.
var searchColumns = "m." + strings.ReplaceAll(messageColumnList, ", ", ", m.")

// searchReadable is the condition on m, a row of transcript_messages, that the viewer of
// a search may read it: a desk row (audience NULL) is read by everyone; an aside by the
// operator ($5), by its author (author_kind $6 and author_id $7: kind 0, which no row has,
// for a viewer who reads desk rows only), and by the authors its audience lists ($8: the
// viewer in the audience's stored form, as one entry, without its label; NULL for none).
// So the rows the viewer may not read never leave the server, and no part of the answer
// depends on them.
const searchReadable = `(m.audience IS NULL OR $5 OR (m.author_kind = $6 AND m.author_id = $7) OR coalesce(m.audience::jsonb @> $8::jsonb, false))`

// searchSetsSQL is the common table expression sets: the reader sets whose rows the
// viewer of a search of desk $1 may read, as transcript_terms keys them. The desk rows' (0)
// for everyone; for the operator ($5) every set of the desk; for another viewer (kind $6,
// id $7; kind 0 for one who reads desk rows only) the sets it belongs to, one probe of
// transcript_term_readers' primary key, which reads that viewer's entries on that desk
// and nothing else.
const searchSetsSQL = `sets AS MATERIALIZED (
	SELECT 0::bigint AS readers
	UNION ALL
	SELECT DISTINCT readers FROM transcript_term_readers WHERE $5 AND desk = $1
	UNION ALL
	SELECT readers FROM transcript_term_readers WHERE NOT $5 AND desk = $1 AND kind = $6 AND id = $7
)`

// searchSQL reads a search of the whole desk $1: its newest matches below Seq $3 that the
// viewer may read (searchReadable), at most $9, newest first: the rows whose terms hold
// every term of $2, whose keys in the desk rows' set (termKey) are $10. $4 is 0
// (searchThreadSQL takes a thread's searches).
//
// It reads the index entries and rows of the viewer's reader sets alone (sets), and only
// those: every scan of transcript_terms names the desk and one of the sets, so that a
// search's work depends only on rows the viewer may read on the desk, never on asides it
// is not party to nor on other desks. Within that, it never reads the desk row by row,
// and reads a bounded number of rows whatever the planner knows of the terms or of the
// tables. The bound b is $3, or the desk's head + 1 (one probe of transcript_desks'
// primary key): seqs are dense, so recent, the viewer's rows of seqs b-1,024 to b-1
// (searchRecentRows), are at most 1,024 rows, and a common word's page is there. They are
// read in three windows (searchRecentWindows), in each set backwards on the terms' primary
// key until the set has its $9 matches of the window (searchWindowSQL); the search stops
// when it has its rows. Else it asks the GIN index, set by set, for the rows holding every
// term (probe: the keys of $10 xor the set, which are this desk's and this set's), at
// most searchProbeRows+1 a set: a rare
// word's rows are all there, and the search keeps those below recent's whose terms and
// set it checks exactly (a key is a hash), in order. A word with more rows in a set is
// common there: the search reads the older rows in windows of seqs, each 4 times the last
// (16,384, 65,536, ...), in each set backwards on the primary key until it has $9 matches
// of the window, and stops within the window that holds its page, so a word common in the
// desk's history costs about as many of the viewer's rows as lie between the bound and
// its page. Append and the lateral joins keep recent's rows, then probe's or the
// windows', in order, newest first, so LIMIT stops as soon as it has its rows; probe and
// the windows are not read when recent holds them.
var searchSQL = `
WITH bound AS MATERIALIZED (
	SELECT least($3, head + 1) AS b FROM transcript_desks WHERE name = $1
), ` + searchSetsSQL + `, probekeys AS MATERIALIZED (
	SELECT s.readers, (SELECT array_agg(k # s.readers) FROM unnest($10::bigint[]) AS k) AS keys FROM sets AS s
), probe AS MATERIALIZED (
	SELECT pk.readers AS set, p.desk, p.readers, p.seq, p.terms FROM probekeys AS pk CROSS JOIN LATERAL (
		SELECT desk, readers, seq, terms FROM transcript_terms WHERE keys @> pk.keys
		LIMIT ` + fmt.Sprint(searchProbeRows+1) + `
	) AS p
), common AS MATERIALIZED (
	SELECT coalesce(max(n), 0) > ` + fmt.Sprint(searchProbeRows) + ` AS common FROM (SELECT count(*) AS n FROM probe GROUP BY set) AS c
), recent AS (
	SELECT b - v.lo AS lo, b - v.hi AS hi FROM bound, (VALUES ` + searchRecentWindows + `) AS v(lo, hi)
), windows AS (
	SELECT greatest(lo, 1) AS lo, hi FROM (
		WITH RECURSIVE w(lo, hi) AS (
			SELECT b - ` + fmt.Sprint(searchRecentRows*5) + `, b - ` + fmt.Sprint(searchRecentRows) + ` FROM bound
			UNION ALL
			SELECT lo - least((hi - lo) * 4, ` + fmt.Sprint(int64(1)<<60) + `), lo FROM w WHERE lo > 1
		) SELECT lo, hi FROM w
	) AS w WHERE hi > 1
), hits AS (
	(SELECT t.seq FROM recent AS w CROSS JOIN LATERAL (` + searchWindowSQL("w.lo", "w.hi") + `) AS t)
	UNION ALL
	(SELECT seq FROM probe
	WHERE desk = $1 AND readers = set AND terms @> $2::text[]
	  AND seq < (SELECT b FROM bound) - ` + fmt.Sprint(searchRecentRows) + `
	  AND NOT (SELECT common FROM common)
	ORDER BY seq DESC)
	UNION ALL
	(SELECT t.seq FROM windows AS w CROSS JOIN LATERAL (` + searchWindowSQL("w.lo", "w.hi") + `) AS t
	WHERE (SELECT common FROM common))
)
SELECT ` + searchColumns + `
FROM hits AS h CROSS JOIN LATERAL (
	SELECT * FROM transcript_messages WHERE desk = $1 AND seq = h.seq AND $4 = 0
	LIMIT 1 -- not flattened into a join that may take hits out of order
) AS m
WHERE ` + searchReadable + `
LIMIT $9`

// searchWindowSQL returns the query of searchSQL's window of seqs lo to hi-1: the newest
// $9 matches in it of each of the viewer's sets (sets), each set's rows read backwards on
// the terms' primary key, which the set and the desk lead, until the set has its $9;
// together newest first.
func searchWindowSQL(lo, hi string) string {
	return `
		SELECT x.seq FROM sets AS s CROSS JOIN LATERAL (
			SELECT y.seq FROM (
				SELECT seq, terms FROM transcript_terms
				WHERE desk = $1 AND readers = s.readers AND seq >= ` + lo + ` AND seq < ` + hi + `
				ORDER BY seq DESC
				OFFSET 0 -- keeps the terms' condition out, and so the GIN index
			) AS y
			WHERE y.terms @> $2::text[]
			LIMIT $9
		) AS x
		ORDER BY x.seq DESC`
}

// searchThreadSQL is searchSQL for a search of thread $4: the row $4 and its direct
// replies, in each of the viewer's reader sets (sets), which the terms' primary key and
// thread index find, each then joined to its message. $10 is not read.
var searchThreadSQL = `
WITH ` + searchSetsSQL + `, hits AS (
	SELECT t.seq FROM sets AS s CROSS JOIN LATERAL (
		SELECT seq, terms FROM transcript_terms
		WHERE desk = $1 AND readers = s.readers AND seq = $4 AND seq < $3
		UNION ALL
		SELECT seq, terms FROM transcript_terms
		WHERE desk = $1 AND readers = s.readers AND parent = $4 AND parent <> 0 AND seq < $3
		OFFSET 0 -- keeps the lateral join's set in the scans' index conditions
	) AS t
	WHERE t.terms @> $2::text[] AND $10::bigint[] IS NOT NULL
	ORDER BY t.seq DESC
	LIMIT $9
)
SELECT ` + searchColumns + `
FROM hits AS h CROSS JOIN LATERAL (
	SELECT * FROM transcript_messages WHERE desk = $1 AND seq = h.seq
	LIMIT 1
) AS m
WHERE ` + searchReadable + `
ORDER BY m.seq DESC
LIMIT $9`

// searchWorkSQL reads the work the transaction's statements have done so far, as
// PostgreSQL counts it for the transaction (pg_stat_get_xact_*): the index entries its
// scans of the search index returned (the GIN index of keys, and transcript_term_readers'
// primary key, where a viewer's sets are found), and the rows its scans fetched from the
// tables a search reads (transcript_terms, transcript_term_readers, transcript_messages,
// transcript_desks): the visible rows each index scan fetched through an index, each
// bitmap or sequential scan of a table. run reads it before and after a search: the
// difference is the search's (SearchWork).
const searchWorkSQL = `
SELECT pg_stat_get_xact_tuples_returned('transcript_terms_keys'::regclass)
     + pg_stat_get_xact_tuples_returned('transcript_term_readers_pkey'::regclass),
       (SELECT sum(pg_stat_get_xact_tuples_fetched(r)) FROM unnest(ARRAY[
           'transcript_terms_pkey', 'transcript_terms_thread', 'transcript_term_readers_pkey',
           'transcript_messages_pkey', 'transcript_messages_thread', 'transcript_messages_key',
           'transcript_messages_corrections', 'transcript_desks_pkey']::regclass[]) AS r)::bigint
     + (SELECT sum(pg_stat_get_xact_tuples_fetched(r) + pg_stat_get_xact_tuples_returned(r)) FROM unnest(ARRAY[
           'transcript_terms', 'transcript_term_readers', 'transcript_messages', 'transcript_desks']::regclass[]) AS r)::bigint`

// SearchWork returns the work of every search of the Log's Store since it was opened, on
// every desk, on the primary and on the standbys: entries, the index entries its search
// index returned to the searches' scans (the GIN index's entries of the terms' keys, and
// the entries of who belongs to which reader set), and rows, the table rows the searches'
// scans fetched (terms rows, reader-set rows, messages, the desk's head), as PostgreSQL
// counts them for each search's transaction. An index entry of a row version no longer
// visible is counted among entries when the GIN index returns it; rows counts visible rows
// only. A search's work depends only on the rows its viewer may read on its desk.
func (l *deskLog) SearchWork() (entries, rows int64) {
	return l.s.searchWork.entries.Load(), l.s.searchWork.rows.Load()
}

// searchBegin opens a search's transaction, read only, whose statements are planned with
// their arguments (a thread's size, the terms' frequencies), without parallel workers,
// which could take searchSQL's rows out of order, and without a sequential scan where an
// index serves: searchSQL's probe is then the GIN index's rows, even for a word the
// statistics call common (it runs only when the desk's newest rows hold few of them).
var searchBegin = []string{
	"BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY",
	"SET LOCAL plan_cache_mode = force_custom_plan",
	"SET LOCAL max_parallel_workers_per_gather = 0",
	"SET LOCAL enable_seqscan = off",
}

// Search implements transcript.Searcher: the newest matches of q among the desk's rows the
// viewer may read, found through the terms index in one query that decides readability
// itself (searchSQL, searchThreadSQL), never by reading the desk row by row. A query
// storage.PlanSearch refuses is its error, matching transcript.ErrBadSearch. An edited
// row is found by its new words only, a redacted row by none: the index follows
// corrections in their append's transaction.
//
// In a Store with standbys, a search is a read: it goes to a standby that has replayed
// every commit the Store knows of on the desk (its appends, and the rows its reads saw),
// waiting for one as a Log's read does, else to the primary. The query runs under ctx.
func (l *deskLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return transcript.SearchResult{}, err
	}
	plan, err := storage.PlanSearch(q)
	if err != nil {
		return transcript.SearchResult{}, err
	}
	if !storable(l.desk) { // no desk has that name, nor any match
		return transcript.SearchResult{}, nil
	}
	read, err := newSearchRead(&l.s.audiences, &l.s.searchWork, l.s.searchKey, l.desk, &plan)
	if err != nil {
		return transcript.SearchResult{}, fmt.Errorf("pgstore: search desk %q: %w", l.desk, err)
	}
	l.s.hooks.reads.Add(1)
	var hits []transcript.Message
	if l.s.replicas.active() {
		hits, err = l.s.replicas.route(ctx, l.desk, read)
	} else {
		hits, err = read.onPool(ctx, l.s.pool)
	}
	if err != nil {
		return transcript.SearchResult{}, fmt.Errorf("pgstore: search desk %q: %w", l.desk, err)
	}
	return plan.Result(hits), nil
}

// searchWork counts the work of a Store's searches (SearchWork).
type searchWork struct{ entries, rows atomic.Int64 }

// searchRead is one search, searchSQL or searchThreadSQL and its arguments, as route sends
// it to a standby or the primary.
type searchRead struct {
	audiences *audienceCache
	work      *searchWork
	desk      string
	sql       string
	args      []any
}

// newSearchRead returns plan's search of desk: its Limit+1 newest matches, which
// SearchPlan.Result needs to set Next.
func newSearchRead(audiences *audienceCache, work *searchWork, key searchKey, desk string, plan *storage.SearchPlan) (searchRead, error) {
	before := int64(math.MaxInt64) // every stored Seq is below it
	if plan.Before != 0 && plan.Before < math.MaxInt64 {
		before = int64(plan.Before)
	}
	thread := int64(plan.Thread)
	if plan.Thread > math.MaxInt64 {
		thread = -1 // no stored row, and not 0, which searches the whole desk
	}
	var (
		operator = false
		kind     int16  // 0: no row's author, for a viewer who reads desk rows only
		id       string // the viewer's id, when kind is not 0
		listed   *string
	)
	switch v := plan.Viewer; {
	case v.Validate() != nil || !storable(v.ID): // the zero Author, or one no row names: desk rows only
	case v.Kind == transcript.KindOperator:
		operator = true
	default:
		entry, err := encodeAudience([]transcript.Author{{Kind: v.Kind, ID: v.ID}})
		if err != nil {
			return searchRead{}, err
		}
		kind, id, listed = int16(v.Kind), v.ID, &entry
	}
	args := []any{desk, plan.Terms, before, thread, operator, kind, id, listed, plan.Limit + 1, key.termKeys(desk, plan.Terms)}
	sql := searchSQL
	if plan.Thread != 0 {
		sql = searchThreadSQL
	}
	return searchRead{audiences: audiences, work: work, desk: desk, sql: sql, args: args}, nil
}

// onPool runs the search on pool, in one round trip.
func (r searchRead) onPool(ctx context.Context, pool *pgxpool.Pool) ([]transcript.Message, error) {
	rows, _, err := r.run(ctx, pool, false)
	return rows, err
}

// onStandby runs the search on sb after reading its head of the desk, in one round trip.
func (r searchRead) onStandby(ctx context.Context, sb *standby) ([]transcript.Message, int64, error) {
	return r.run(ctx, sb.pool, true)
}

// judge takes a standby's answer once the standby has replayed every commit the store
// knows of on the desk: a correction changes rows below its own, so a search of a standby
// that shows the newest known row but not a correction the Store made after it could find
// erased words. A desk's commits are replayed in order, so the head read before the search
// tells.
func (r searchRead) judge(_ []transcript.Message, known, head int64) verdict {
	if head >= known {
		return whole
	}
	return lagging
}

func (r searchRead) target(known int64) int64 { return known }

// run sends the search's transaction to pool (searchBegin, deskHeadSQL when withHead,
// searchWorkSQL, the search, searchWorkSQL, COMMIT) and returns its rows, and the desk's
// head when withHead (0 for a desk the server does not hold), else math.MaxInt64. It adds
// the search's work to the Store's counts.
func (r searchRead) run(ctx context.Context, pool *pgxpool.Pool, withHead bool) (_ []transcript.Message, head int64, _ error) {
	var b pgx.Batch
	for _, sql := range searchBegin {
		b.Queue(sql)
	}
	if withHead {
		b.Queue(deskHeadSQL, r.desk)
	}
	b.Queue(searchWorkSQL)
	b.Queue(r.sql, r.args...)
	b.Queue(searchWorkSQL)
	b.Queue("COMMIT")
	br := pool.SendBatch(ctx, &b) // on an error, the pool closes the connection left in the transaction
	defer br.Close()
	for range searchBegin {
		if _, err := br.Exec(); err != nil {
			return nil, 0, err
		}
	}
	head = math.MaxInt64
	if withHead {
		head = 0
		if err := br.QueryRow().Scan(&head); err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return nil, 0, err
		}
	}
	var before, after [2]int64
	if err := br.QueryRow().Scan(&before[0], &before[1]); err != nil {
		return nil, 0, err
	}
	res, err := br.Query()
	if err != nil {
		return nil, 0, err
	}
	rows, err := scanPage(res, make([]transcript.Message, 0, 8), r.audiences) // as many as SearchPlan.Result keeps, and the one after
	if err != nil {
		return nil, 0, err
	}
	if err := br.QueryRow().Scan(&after[0], &after[1]); err != nil {
		return nil, 0, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, 0, err
	}
	r.work.entries.Add(after[0] - before[0])
	r.work.rows.Add(after[1] - before[1])
	for i := 1; i < len(rows); i++ {
		if rows[i].Seq >= rows[i-1].Seq {
			return nil, 0, fmt.Errorf("the server returned row %d after row %d: not newest first", rows[i].Seq, rows[i-1].Seq)
		}
	}
	return rows, head, br.Close()
}
