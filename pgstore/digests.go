package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// A correction's revision of its target (reviseSQL, queued by queueRevisions in the
// append's transaction) deletes the digests that stand for the target: the schema's
// trigger transcript_digests_forget (migrations/0010_digests.sql, its condition
// 0012_aside_corrections.sql's) deletes, in the same transaction, every digest of the
// target's channel and of its parent's thread whose through is at or above the target's
// seq, for every process that writes the database, when the target is a desk row (its
// audience NULL): a digest folds no aside, and the correction of one deletes none.

// digestSQL reads the newest digest of desk $1's conversation $2 whose through is below
// $3: one probe of the (desk, thread, through) index, backwards from the bound.
const digestSQL = `
SELECT generation, through, row_count, digester, content
FROM transcript_digests
WHERE desk = $1 AND thread = $2 AND through < $3
ORDER BY through DESC
LIMIT 1`

// lockDeskForDigestSQL takes desk $1's row lock, which every append to the desk takes
// (lockHeadSQL) and DeleteDesk too, so that a put and the desk's appends run one at a time;
// the statement after it sees what the appends before it committed.
const lockDeskForDigestSQL = `SELECT head FROM transcript_desks WHERE name = $1 FOR NO KEY UPDATE`

// digestReadSQL reads desk $1's id and head, for a fold (DigestRead).
const digestReadSQL = `SELECT id, head FROM transcript_desks WHERE name = $1`

// putDigestSQL stores a digest of desk $1 (conversation $2, generation $3, through $4, rows
// $5, digester $6, text $7), folded from the rows read at head $8 of the desk whose id was
// $9, when the desk's id is $9 (the desk was not deleted since, nor made anew) and its head
// is at least $8, the conversation's newest digest is generation $3-1 (none for 1) with a
// through below $4, and no desk row after $8 (no aside: a digest folds none) corrects a row
// at or below $4 (a range of the primary key above $8: the rows appended while the fold
// ran; coalesce keeps the planner off the partial index of corrections, which a range of
// corrects would walk whole when no row matches). It returns what it found and whether it
// stored the digest; no row when the desk has none. A digest it stores it notifies on
// digestsChannel, its conversation alone, when $10 is true (a desk's name short enough for
// a payload): the notification comes once the transaction commits. It runs after
// lockDeskForDigestSQL, in the same transaction, and with its custom plan (customPlanSQL),
// which knows how few rows lie above $8: a generic plan, which guesses a third of the desk,
// reads the desk's rows in turn.
const putDigestSQL = `
WITH state AS (
	SELECT d.id, d.head, n.generation, n.through,
	       EXISTS (
	           SELECT FROM transcript_messages
	           WHERE desk = $1::text AND seq > $8::bigint AND coalesce(corrects, 0) BETWEEN 1 AND $4::bigint
	             AND audience IS NULL
	       ) AS corrected
	FROM transcript_desks AS d
	LEFT JOIN LATERAL (
	    SELECT generation, through
	    FROM transcript_digests
	    WHERE desk = $1::text AND thread = $2::bigint
	    ORDER BY through DESC
	    LIMIT 1
	) AS n ON true
	WHERE d.name = $1::text
), put AS (
	INSERT INTO transcript_digests (desk, thread, generation, through, row_count, digester, content)
	SELECT $1::text, $2::bigint, $3::integer, $4::bigint, $5::bigint, $6::text, $7::text
	FROM state
	WHERE state.id = $9::bigint AND state.head >= $8::bigint AND coalesce(state.generation, 0) = $3::integer - 1
	  AND coalesce(state.through, 0) < $4::bigint AND NOT state.corrected
	RETURNING CASE WHEN $10::boolean THEN pg_notify('` + digestsChannel + `', $2::bigint || ' ' || $1::text) END
)
SELECT id, head, coalesce(generation, 0), coalesce(through, 0), corrected, EXISTS (SELECT FROM put)
FROM state`

// customPlanSQL makes the statements after it in the transaction be planned for their
// arguments at each execution: a put is one statement a fold, whose planning costs little.
const customPlanSQL = `SET LOCAL plan_cache_mode = force_custom_plan`

// Digest implements digest.Store: the newest digest of c whose Through is below below (0:
// no bound), and false when the desk has none, in one probe of the (desk, thread, through)
// index. c must name the Log's desk. It reads on the primary, also in a Store with standbys:
// a digest that a correction deleted is never returned once the correction's Append has
// returned, in this process or any other. The query runs under ctx.
func (l *deskLog) Digest(ctx context.Context, c transcript.Conversation, below transcript.Sequence) (transcript.Digest, bool, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Digest{}, false, err
	}
	if err := storage.CheckDigestDesk(l.desk, c); err != nil {
		return transcript.Digest{}, false, fmt.Errorf("pgstore: %w", err)
	}
	return l.scanDigest(ctx, c, below, l.s.pool.QueryRow(ctx, digestSQL, l.desk, int64(c.Thread), upperBound(below)))
}

// scanDigest is Digest's answer from row, digestSQL's for c below below: false when there
// is no row.
func (l *deskLog) scanDigest(ctx context.Context, c transcript.Conversation, below transcript.Sequence, row pgx.Row) (transcript.Digest, bool, error) {
	d := transcript.Digest{Conversation: c}
	var through, rows int64
	switch err := row.Scan(&d.Generation, &through, &rows, &d.Digester, &d.Text); {
	case errors.Is(err, pgx.ErrNoRows):
		return transcript.Digest{}, false, nil
	case err != nil:
		return transcript.Digest{}, false, stmtError(ctx, fmt.Sprintf("desk %q: digest of %s below %d", l.desk, storage.ConversationName(c), below), err)
	}
	d.Through, d.Rows = transcript.Sequence(through), int(rows)
	return d, true, nil
}

// DigestRead implements digest.Store: the desk's head and the id of its transcript_desks
// row, which a desk made anew under its name never has, in one read on the primary, also
// in a Store with standbys; both 0 when the database holds no row of the desk. The query
// runs under ctx. The head is then a row the Store knows is committed: a fold's reads of
// the rows below it take no standby that has not replayed every commit up to it, so a
// correction committed before DigestRead (by this Store or another) is in every row the
// fold reads, and PutDigest refuses one committed after.
func (l *deskLog) DigestRead(ctx context.Context) (storage.DigestRead, error) {
	if err := ctx.Err(); err != nil {
		return storage.DigestRead{}, err
	}
	var id, head int64
	switch err := l.s.pool.QueryRow(ctx, digestReadSQL, l.desk).Scan(&id, &head); {
	case errors.Is(err, pgx.ErrNoRows):
		return storage.DigestRead{}, nil
	case err != nil:
		return storage.DigestRead{}, stmtError(ctx, fmt.Sprintf("desk %q: reading its head for a fold", l.desk), err)
	}
	l.s.replicas.fences.raise(l.desk, head)
	return storage.DigestRead{Head: transcript.Sequence(head), Desk: id}, nil
}

// PutDigest implements digest.Store: it stores d as generation d.Generation of its
// conversation's digest, in one transaction that holds the desk row's lock, as the desk's
// appends do, when the desk is the one read names (its row's id: not a desk made anew
// under the name of one deleted since), the conversation's newest digest is generation
// d.Generation-1 (none for 1) with a Through below d.Through, and no row after read.Head
// that is no aside corrects a row at or below d.Through. Otherwise it stores nothing and
// returns an error matching storage.ErrSuperseded that says which. A digest no fold could
// have made (storage.CheckDigest: another desk, a generation below 1, a Through beyond
// read, text a store cannot keep) is an error matching storage.ErrInvalidDigest, and
// nothing is stored. It is one round trip, which holds the lock only while the server runs
// it; a digest stored is notified to every WatchDigests on the database once it commits. A
// read-only Store refuses with ErrReadOnly.
func (l *deskLog) PutDigest(ctx context.Context, d transcript.Digest, r storage.DigestRead) error {
	read := r.Head
	if err := ctx.Err(); err != nil {
		return err
	}
	what := fmt.Sprintf("desk %q: digest of %s, generation %d through %d", l.desk, storage.ConversationName(d.Conversation), d.Generation, d.Through)
	if err := l.s.writable(what); err != nil {
		return err
	}
	if err := storage.CheckDigest(l.desk, d, read); err != nil {
		return fmt.Errorf("pgstore: %w", err)
	}
	superseded := func(why string, args ...any) error {
		return fmt.Errorf("pgstore: %s: %w: %s", what, storage.ErrSuperseded, fmt.Sprintf(why, args...))
	}
	conn, err := l.s.pool.Acquire(ctx)
	if err != nil {
		return stmtError(ctx, what, err)
	}
	defer conn.Release() // a connection left inside a transaction is closed, not reused
	var (
		b                        pgx.Batch
		id, head, through        int64
		generation               int
		corrected, stored, found bool
	)
	b.Queue(beginSQL)
	b.Queue(customPlanSQL)
	b.Queue(lockDeskForDigestSQL, l.desk)
	b.Queue(putDigestSQL, l.desk, int64(d.Conversation.Thread), d.Generation, int64(d.Through), int64(d.Rows), d.Digester, d.Text, int64(read), r.Desk, len(l.desk) < maxNotifyPayload)
	b.Queue("COMMIT")
	committed := false
	err = roundTrip(ctx, conn, &b, func(br pgx.BatchResults) error {
		for range 3 { // BEGIN, the plans, the lock (no row for a desk that holds none)
			if _, err := br.Exec(); err != nil {
				return err
			}
		}
		switch err := br.QueryRow().Scan(&id, &head, &generation, &through, &corrected, &stored); {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		default:
			found = true
		}
		if _, err := br.Exec(); err != nil {
			return fmt.Errorf("commit: %w", err)
		}
		committed = true
		return nil
	})
	if err != nil && !committed {
		conn.Exec(ctx, "ROLLBACK") // if this fails too, Release closes the connection
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "23505" { // a writer that bypassed the lock stored the generation
			return superseded("another fold stored generation %d", d.Generation)
		}
		return stmtError(ctx, what, err)
	}
	switch {
	case stored:
		return nil
	case !found:
		return superseded("the desk holds no rows")
	case id != r.Desk:
		return superseded("the desk its fold read was deleted since, and this desk made anew under its name")
	case head < int64(read):
		return superseded("the desk holds %d rows, fewer than the %d its fold read: it was deleted since", head, read)
	case corrected:
		return superseded("a row appended after %d corrects a row it folded", read)
	}
	return superseded("the newest digest is generation %d through %d", generation, through)
}
