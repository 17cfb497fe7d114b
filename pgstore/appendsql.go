package pgstore

import (
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
)

// genericPlansSQL makes the statements after it in the transaction run their generic plans,
// the ones TestQueryPlans and TestLookupPlansOnANewTable check. pgx prepares every
// statement, and PostgreSQL plans a prepared statement afresh at each execution while its
// generic plan looks dearer than the custom ones, as it always does for parentsSQL and
// keyRowsSQL: their generic plans assume 10 elements in the unnested array, their custom
// plans know how many there are. Without it, each was planned at every execution, the planning costing
// several times the execution. Their generic plans, made once a connection, probe the same indexes. Only the
// appends that send one of the two send it: one parent or one key is looked up by
// parentSQL or keyRowSQL instead, whose generic plan PostgreSQL takes by itself after five
// executions, and which cost an append neither this statement nor the planning.
const genericPlansSQL = `SET LOCAL plan_cache_mode = force_generic_plan`

// lockHeadSQL moves desk $1's head $2 rows on, creating the desk on its first append, and
// returns the old head, which the new rows are numbered from. The upsert takes the desk
// row's lock, held until the transaction ends, so a desk's appends run one at a time, in the
// order they commit, while appends to other desks go on.
const lockHeadSQL = `
INSERT INTO transcript_desks AS d (name, head) VALUES ($1, $2)
ON CONFLICT (name) DO UPDATE SET head = d.head + excluded.head
RETURNING d.head - $2`

// notifySQL tells the database's listeners (Store.Watch) that desk $1 moved: a
// notification on notifyChannel whose payload is the desk's name (notifyPayload). It is
// queued right after an append's COMMIT, in the same round trip, as a transaction of its own
// that does not wait for its commit to be flushed (synchronous_commit off, for it alone): a
// pipeline skips it when the COMMIT fails, so an append that is refused, or a replay that
// writes nothing and rolls back, notifies nobody. (A keyed root's replay commits a
// transaction that changes nothing, insertKeySQL's, and notifies.)
//
// It is not inside the append's transaction because PostgreSQL makes notifying transactions
// commit one at a time, holding a queue lock while the commit record is flushed: appends to
// different desks would stop sharing one flush (BENCHMARKS.md, "PostgreSQL store", has what
// that costs on a server that fsyncs). The price: a connection lost between the COMMIT and
// the notification (the appending process killed in between) leaves the listeners
// uninformed until the next append to the desk; Watch's doc says so.
const notifySQL = `SELECT set_config('synchronous_commit', 'off', true), pg_notify('` + notifyChannel + `', $1)`

// parentsSQL reads, by primary key, the rows of desk $1 whose Seq is in $2: what the reply
// rule needs of an append's stored parents (never their content; corrects, to refuse a
// reply to a correction). It runs after lockHeadSQL in the same transaction, so it sees
// every row below the head (each statement of a READ COMMITTED transaction sees what
// committed before it started).
//
// One probe of the primary key per parent, whatever the plan: the subquery that LIMIT keeps
// from being flattened is a full-key equality, which PostgreSQL plans as an index scan even
// on a small table without statistics. The plainer "desk = $1 AND seq = ANY($2)" does not:
// its generic plan, made while a table is small (pgx prepares every statement, and
// PostgreSQL keeps a generic plan until the table is analyzed again), scans the whole desk
// through the thread index, and a reply's append then slowed as its desk grew.
const parentsSQL = `
SELECT m.seq, m.author_kind, m.author_id, m.author_label, m.audience, m.corrects
FROM unnest($2::bigint[]) AS p(seq)
CROSS JOIN LATERAL (
	SELECT seq, author_kind, author_id, author_label, audience, coalesce(corrects, 0) AS corrects
	FROM transcript_messages
	WHERE desk = $1 AND seq = p.seq
	LIMIT 1
) m`

// parentSQL is parentsSQL for one parent, $2: a full-key equality on the primary key,
// whose generic plan is an index scan in every state of the table parentsSQL's is.
const parentSQL = `
SELECT seq, author_kind, author_id, author_label, audience, coalesce(corrects, 0)
FROM transcript_messages
WHERE desk = $1 AND seq = $2`

// storedRowsSQL is parentsSQL for an append that holds a correction: the stored rows it
// names (parents and targets) whole, as a read returns them, since the correction rule
// reads a target's content (is it blank?), corrects, redacted and audience. One probe of
// the primary key per row, as parentsSQL.
const storedRowsSQL = `
SELECT m.*
FROM unnest($2::bigint[]) AS p(seq)
CROSS JOIN LATERAL (
	SELECT ` + messageColumnList + `
	FROM transcript_messages
	WHERE desk = $1 AND seq = p.seq
	LIMIT 1
) m`

// storedRowSQL is storedRowsSQL for one row, $2, as parentSQL is parentsSQL's.
const storedRowSQL = `
SELECT ` + messageColumnList + `
FROM transcript_messages
WHERE desk = $1 AND seq = $2`

// reviseSQL applies to row $2 of desk $1, stored before the append, what the append's
// corrections change in it (a storage.Revision): content $3, redacted $4 (stored as
// NULL when false) and revised $5. A full-key equality on the primary key: one probe.
const reviseSQL = `
UPDATE transcript_messages SET content = $3, redacted = nullif($4, false), revised = $5
WHERE desk = $1 AND seq = $2`

// eraseSQL erases, in desk $1, every correction of row $2 stored before the append (Seq at
// most $3, the desk's head before it): what a redaction of row $2 does besides reviseSQL.
// The (desk, corrects, seq) index finds them.
const eraseSQL = `
UPDATE transcript_messages SET content = '', redacted = true
WHERE desk = $1 AND corrects = $2 AND seq <= $3 AND corrects IS NOT NULL`

// returnHeadSQL moves desk $1's head $2 rows back, in the transaction whose lockHeadSQL
// moved it past every message of an append: $2 of them are not stored, their keys present
// and the same messages (storage.Batch.Settle). The desk row is locked already.
const returnHeadSQL = `UPDATE transcript_desks SET head = head - $2 WHERE name = $1`

// insertSQL inserts the $2 rows that lockHeadSQL, earlier in the same transaction, moved
// desk $1's head past, numbered from the old head up. A row's parent is the literal $3, or,
// when $4 is a batch index (not -1), the Seq of that row of the batch. audience ($10) is the
// stored form of the row's Audience (encodeAudience), or the empty string for a desk row,
// stored as NULL (a plain text array is the cheapest to send; no stored form is empty).
// key ($11) is the row's Key, the empty string for none, stored as NULL; $11 itself is NULL
// when no row has a key (unnest pads a NULL array with NULLs), so a keyless append sends
// nothing for it. corrects ($12), redacted ($13) and revised ($14) are sent the same way:
// 0 or false is stored as NULL, and each array is NULL when no row sets it.
//
// Parents are checked before (storage.Batch.Settle): a desk's sequences run from 1 to its
// head without a gap and rows are deleted only with their whole desk (DeleteDesk), so a
// parent is an older row of the desk exactly when 0 < parent < seq, and the table's CHECK
// constraint holds every row to it too.
const insertSQL = `
INSERT INTO transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content, at, audience, key, corrects, redacted, revised)
SELECT $1, d.head - $2 + r.ord,
       CASE WHEN r.batch >= 0 THEN d.head - $2 + r.batch + 1 ELSE r.parent END,
       r.kind, r.id, r.label, r.content, r.at, nullif(r.audience, ''), nullif(r.key, ''),
       nullif(r.corrects, 0), nullif(r.redacted, false), nullif(r.revised, 0)
FROM transcript_desks d,
     unnest($3::bigint[], $4::bigint[], $5::smallint[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $10::text[], $11::text[],
            $12::bigint[], $13::boolean[], $14::bigint[])
		WITH ORDINALITY AS r(parent, batch, kind, id, label, content, at, audience, key, corrects, redacted, revised, ord)
WHERE d.name = $1`

// insertKeySQL is insertSQL for one row with a key, which inserts nothing when desk $1
// holds the key already (the (desk, key) index is the conflict's arbiter), and then moves
// the head back the one row that lockHeadSQL, earlier in the same transaction, moved it
// on, so that the head is where it was. It updates one row (the desk's, locked already)
// when it inserted none, and none when it inserted the row: one statement, where a second
// one checking the head cost a keyed append a tenth more than a keyless one. The row it
// inserts gets its terms, $15 (as insertTermsSQL takes them; "" for none), their keys $16
// and its reader set $17, in the same statement.
const insertKeySQL = `
WITH inserted AS (` + insertSQL + `
	ON CONFLICT (desk, key) WHERE key IS NOT NULL DO NOTHING
	RETURNING seq, parent
), indexed AS (
	INSERT INTO transcript_terms (desk, readers, seq, parent, terms, keys)
	SELECT $1, $17::bigint, seq, parent, string_to_array($15::text, ' '), string_to_array($16::text, ' ')::bigint[]
	FROM inserted WHERE $15::text <> ''
)
UPDATE transcript_desks SET head = head - 1
WHERE name = $1 AND NOT EXISTS (SELECT FROM inserted)`

// insertArgs returns insertSQL's arguments for rows, settled: their Seqs run on from the
// desk's head, their Parents and Audiences final. When relative, rows were settled as if
// the desk were empty (Seqs from 1, the head not known yet), and a Parent that is not 0
// names a row of rows by that Seq: it is sent as a batch index. Otherwise every Parent is a
// row's Seq, sent as it is.
func insertArgs(desk string, rows []transcript.Message, relative bool) ([]any, error) {
	var (
		parents   = make([]int64, len(rows))
		batch     = make([]int64, len(rows))
		kinds     = make([]int16, len(rows))
		ids       = make([]string, len(rows))
		labels    = make([]string, len(rows))
		content   = make([]string, len(rows))
		ats       = make([]time.Time, len(rows))
		audiences = make([]string, len(rows)) // "": a desk row
		keys      []string                    // "": no key; nil (NULL) while no row has one
		corrects  []int64                     // 0: no correction; nil (NULL) while no row is one
		redacted  []bool                      // nil (NULL) while no row is redacted
		revised   []int64                     // 0: never corrected; nil (NULL) while no row was
	)
	for i, r := range rows {
		batch[i] = -1
		if relative && r.Parent != 0 {
			batch[i] = int64(r.Parent) - 1
		} else {
			parents[i] = int64(r.Parent)
		}
		kinds[i], ids[i], labels[i], content[i], ats[i] = int16(r.Author.Kind), r.Author.ID, r.Author.Label, r.Content, r.At
		if len(r.Audience) > 0 {
			enc, err := encodeAudience(r.Audience)
			if err != nil {
				return nil, fmt.Errorf("encode the audience of row %d: %w", i, err)
			}
			audiences[i] = enc
		}
		if r.Key != "" {
			if keys == nil {
				keys = make([]string, len(rows))
			}
			keys[i] = r.Key
		}
		if r.Corrects != 0 {
			if corrects == nil {
				corrects = make([]int64, len(rows))
			}
			corrects[i] = int64(r.Corrects)
		}
		if r.Redacted {
			if redacted == nil {
				redacted = make([]bool, len(rows))
			}
			redacted[i] = true
		}
		if r.Revised != 0 {
			if revised == nil {
				revised = make([]int64, len(rows))
			}
			revised[i] = int64(r.Revised)
		}
	}
	return []any{desk, int64(len(rows)), parents, batch, kinds, ids, labels, content, ats, audiences, keys, corrects, redacted, revised}, nil
}

// execInsert reads insertSQL's result from br and checks that it stored n rows.
func execInsert(br pgx.BatchResults, n int) error {
	tag, err := br.Exec()
	if err != nil {
		return err
	}
	if tag.RowsAffected() != int64(n) {
		return fmt.Errorf("inserted %d rows, want %d", tag.RowsAffected(), n)
	}
	return nil
}

// readParents reads parentsSQL's result from br, at most n rows, by Seq. Their audiences are
// the cache's, for the reply rule to read only.
func (s *Store) readParents(br pgx.BatchResults, n int) (map[transcript.Sequence]transcript.Message, error) {
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	stored := make(map[transcript.Sequence]transcript.Message, n)
	for rows.Next() {
		var (
			seq      int64
			p        transcript.Message
			kind     int16
			audience []byte // nil for NULL
		)
		var corrects int64
		if err := rows.Scan(&seq, &kind, &p.Author.ID, &p.Author.Label, &audience, &corrects); err != nil {
			return nil, err
		}
		p.Seq, p.Author.Kind, p.Corrects = transcript.Sequence(seq), transcript.AuthorKind(kind), transcript.Sequence(corrects)
		if audience != nil {
			if p.Audience, err = s.audiences.decode(audience); err != nil {
				return nil, fmt.Errorf("%w: the audience of row %d: %v", errColumn, seq, err)
			}
		}
		stored[p.Seq] = p
	}
	return stored, rows.Err()
}
