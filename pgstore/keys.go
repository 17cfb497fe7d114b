package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sharedesk/transcript"
)

// keyRowsSQL reads the rows of desk $1 whose keys are in $2, as a read returns them: one
// probe of the (desk, key) index per key, whatever the plan, for the reason parentsSQL
// gives (the subquery that LIMIT keeps from being flattened is a full-key equality, planned
// as an index scan even on a new table without statistics). The plainer "key = ANY($2)" is
// not: its generic plan scans the desk's rows with a key through the (desk, key) index, or
// its rows through the thread index, or the table, depending on the statistics when it is
// made (PostgreSQL 15). A key the desk does not hold yields no row, nor does the empty key
// (no row holds it: the table's CHECK constraint). In an append it runs after lockHeadSQL,
// in the same transaction, so it sees every row committed before the desk's lock was
// granted: the rows of every earlier append to the desk.
const keyRowsSQL = `
SELECT m.*
FROM unnest($2::text[]) AS k(key)
CROSS JOIN LATERAL (
	SELECT ` + messageColumnList + `
	FROM transcript_messages
	WHERE desk = $1 AND key = k.key
	LIMIT 1
) m
WHERE k.key <> ''`

// keyRowSQL is keyRowsSQL for one key, $2: a full-key equality on the (desk, key) index,
// whose generic plan is an index scan in every state of the table keyRowsSQL's is.
const keyRowSQL = `
SELECT ` + messageColumnList + `
FROM transcript_messages
WHERE desk = $1 AND key = $2`

// keyLookupChunk is how many keys one query of LookupKeys looks up: a query of a few
// hundred kilobytes each way, so that a million keys cost 200 round trips, and neither the
// query nor its result is ever large.
const keyLookupChunk = 5000

// LookupKeys returns the rows of desk that hold the given keys, by key, each as ReadBefore
// returns it (Key and Audience included, the Audience a new slice, in a map that is new:
// both the caller's). A key the desk does not hold is absent from the map, and so is the
// empty key, which is no key, and any key no row can hold (text PostgreSQL cannot store);
// a desk the Store does not hold holds no key, nor does a name no desk can have. keys may repeat, in any order, and be any
// number: LookupKeys looks them up keyLookupChunk (5,000) at a time, a query each, every
// key one probe of the (desk, key) index, so its cost grows with the keys and the rows
// found, never with the desk.
//
// The queries are separate reads: a row appended while LookupKeys runs may or may not be
// found. (A row once found stays: rows are never deleted, and a key never changes; a
// correction may change its content since.) Every query runs under ctx; once ctx is done,
// LookupKeys fails with an error matching ctx.Err(). It is
// safe for concurrent use.
func (s *Store) LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	found := make(map[string]transcript.Message)
	if desk == "" || !storable(desk) { // no desk has that name
		return found, nil
	}
	chunk := make([]string, 0, min(len(keys), keyLookupChunk))
	var rows []transcript.Message
	for start := 0; start < len(keys); {
		chunk = chunk[:0]
		for ; start < len(keys) && len(chunk) < keyLookupChunk; start++ {
			if k := keys[start]; k != "" && storable(k) {
				chunk = append(chunk, k)
			}
		}
		if len(chunk) == 0 {
			continue
		}
		res, err := s.pool.Query(ctx, keyRowsSQL, desk, chunk)
		if err == nil {
			rows, err = scanMessages(res, rows[:0], &s.audiences)
		}
		if err != nil {
			return nil, fmt.Errorf("pgstore: desk %q: look up %d keys: %w", desk, len(keys), err)
		}
		for _, m := range rows {
			found[m.Key] = m
		}
	}
	return found, nil
}

// readKeys reads keyRowsSQL's result from br, for keys, an append's: the stored rows holding
// them, by key, decoded as a read decodes them (their Audiences new slices).
func (s *Store) readKeys(br pgx.BatchResults, keys int) (map[string]*transcript.Message, error) {
	res, err := br.Query()
	if err != nil {
		return nil, err
	}
	// A batch's keys are often all present (a re-import) or all absent: room for all of
	// them costs the second little and saves the first the slice's growth.
	rows, err := scanMessages(res, make([]transcript.Message, 0, keys), &s.audiences)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	present := make(map[string]*transcript.Message, len(rows))
	for i := range rows {
		present[rows[i].Key] = &rows[i]
	}
	return present, nil
}

// keyIndex is the unique index of (desk, key) (migrations/0004_keys.sql).
const keyIndex = "transcript_messages_key"

// keyTaken reports whether err is a unique violation of keyIndex: an insert of a key that
// the append's lookup did not find. Appends of one desk take turns under its lock and look
// their keys up after taking it, so that takes a writer that inserts rows without the
// lock; the append is then tried again, and its new lookup finds the row.
func keyTaken(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == keyIndex
}
