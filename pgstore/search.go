package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
)

var _ transcript.Searcher = (*deskLog)(nil)

// searchSQL reads a search's matches in desk $1, newest first, at most $9 of them: the rows
// whose terms hold every term of $2 (the GIN index finds them), below Seq $3, in thread $4
// (the row $4 and its direct replies; 0: the whole desk), that the viewer may read. A desk
// row (audience NULL) is read by everyone; an aside by the operator ($5), by its author
// (author_kind $6 and author_id $7: kind 0, which no row has, for a viewer who reads desk
// rows only), and by the authors its audience lists ($8: the viewer in the audience's stored
// form, as one entry, without its label; NULL for none). So the rows the viewer may not read
// never leave the server, and no part of the answer depends on them.
//
// It runs under searchCustomPlansSQL: planned with its arguments, PostgreSQL weighs a
// term's frequency (ANALYZE's statistics of the arrays' elements) and probes the GIN index
// for a rare one, or walks the terms' (desk, seq) index backwards for a common one, which
// finds its Limit+1 matches within a few rows; a generic plan would pick one for every term.
var searchSQL = `
SELECT m.` + strings.ReplaceAll(messageColumnList, ", ", ", m.") + `
FROM transcript_terms AS t JOIN transcript_messages AS m ON m.desk = t.desk AND m.seq = t.seq
WHERE t.desk = $1 AND t.terms @> $2::text[] AND t.seq < $3
  AND ($4 = 0 OR m.seq = $4 OR m.parent = $4)
  AND (m.audience IS NULL OR $5 OR (m.author_kind = $6 AND m.author_id = $7) OR coalesce(m.audience::jsonb @> $8::jsonb, false))
ORDER BY t.seq DESC
LIMIT $9`

// searchBeginSQL and searchCustomPlansSQL open a search's transaction, read only, whose
// statements are planned with their arguments (see searchSQL).
const (
	searchBeginSQL       = "BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY"
	searchCustomPlansSQL = "SET LOCAL plan_cache_mode = force_custom_plan"
)

// Search implements transcript.Searcher: the newest matches of q among the desk's rows the
// viewer may read, found through the terms index in one query that decides readability
// itself (searchSQL), never by reading the desk row by row. A query transcript.PlanSearch
// refuses is its error, matching transcript.ErrBadSearch. An edited row is found by its new
// words only, a redacted row by none: the index follows corrections in their append's
// transaction.
//
// In a Store with standbys, a search is a read: it goes to a standby that has replayed
// every commit the Store knows of on the desk (its appends, and the rows its reads saw),
// waiting for one as a Log's read does, else to the primary. The query runs under ctx.
func (l *deskLog) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return transcript.SearchResult{}, err
	}
	plan, err := transcript.PlanSearch(q)
	if err != nil {
		return transcript.SearchResult{}, err
	}
	read, err := newSearchRead(&l.s.audiences, l.desk, &plan)
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

// searchRead is one search, searchSQL's arguments, as route sends it to a standby or the
// primary.
type searchRead struct {
	audiences *audienceCache
	desk      string
	args      []any
}

// newSearchRead returns plan's search of desk: its Limit+1 newest matches, which
// SearchPlan.Result needs to set Next.
func newSearchRead(audiences *audienceCache, desk string, plan *transcript.SearchPlan) (searchRead, error) {
	before := int64(math.MaxInt64) // every stored Seq is below it
	if plan.Before != 0 {
		before = int64(plan.Before)
	}
	var (
		operator = false
		kind     int16  // 0: no row's author, for a viewer who reads desk rows only
		id       string // the viewer's id, when kind is not 0
		listed   *string
	)
	switch v := plan.Viewer; {
	case v.Validate() != nil: // the zero Author, or no author at all: desk rows only
	case v.Kind == transcript.KindOperator:
		operator = true
	default:
		entry, err := encodeAudience([]transcript.Author{{Kind: v.Kind, ID: v.ID}})
		if err != nil {
			return searchRead{}, err
		}
		kind, id, listed = int16(v.Kind), v.ID, &entry
	}
	args := []any{desk, plan.Terms, before, int64(plan.Thread), operator, kind, id, listed, plan.Limit + 1}
	return searchRead{audiences: audiences, desk: desk, args: args}, nil
}

// onPool runs the search on pool, in one round trip.
func (r searchRead) onPool(ctx context.Context, pool *pgxpool.Pool) ([]transcript.Message, error) {
	rows, _, err := r.run(ctx, pool, false)
	return rows, err
}

// onStandby runs the search on sb after reading its head of the desk, in one round trip.
func (r searchRead) onStandby(ctx context.Context, sb *standby, _ int64) ([]transcript.Message, int64, error) {
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

// run sends the search's transaction to pool (BEGIN, searchCustomPlansSQL, deskHeadSQL when
// withHead, searchSQL, COMMIT) and returns its rows, and the desk's head when withHead (0
// for a desk the server does not hold), else math.MaxInt64.
func (r searchRead) run(ctx context.Context, pool *pgxpool.Pool, withHead bool) (_ []transcript.Message, head int64, _ error) {
	var b pgx.Batch
	b.Queue(searchBeginSQL)
	b.Queue(searchCustomPlansSQL)
	if withHead {
		b.Queue(deskHeadSQL, r.desk)
	}
	b.Queue(searchSQL, r.args...)
	b.Queue("COMMIT")
	br := pool.SendBatch(ctx, &b) // on an error, the pool closes the connection left in the transaction
	defer br.Close()
	for range 2 {
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
	res, err := br.Query()
	if err != nil {
		return nil, 0, err
	}
	rows, err := scanPage(res, make([]transcript.Message, 0, 8), r.audiences) // as many as SearchPlan.Result keeps, and the one after
	if err != nil {
		return nil, 0, err
	}
	if _, err := br.Exec(); err != nil {
		return nil, 0, err
	}
	return rows, head, br.Close()
}
