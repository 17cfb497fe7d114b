package sqlitestore

import (
	"context"
	"database/sql"

	"github.com/sharedesk/transcript"
)

// digestReuseWindow is how many rowids below the newest digest a WatchDigests poll read
// last it reads again once that digest is gone or another: SQLite gives a new row the rowid
// above the newest one held, so after the newest digests were deleted a digest stored may
// take one of their rowids.
const digestReuseWindow = 64

// The statements of WatchDigests' poll: the digests from a rowid up, a range of the table's
// rowids (the digests stored since the last poll, and the newest it read), with their desks'
// names; and the newest digest, one probe of the rowids' end. Neither reads a digest's text.
const (
	digestsFromSQL = `
SELECT digests.id, digests.desk, desks.name, digests.thread, digests.generation, digests.through
FROM digests JOIN desks ON desks.id = digests.desk
WHERE digests.id >= ?1
ORDER BY digests.id`
	newestDigestRowSQL = `
SELECT digests.id, digests.desk, desks.name, digests.thread, digests.generation, digests.through
FROM digests JOIN desks ON desks.id = digests.desk
ORDER BY digests.id DESC
LIMIT 1`
)

// digestRow is what WatchDigests reads of a digest: its rowid, and what tells it from
// another digest given the same rowid after it was deleted.
type digestRow struct {
	id, desk                    int64
	name                        string
	thread, generation, through int64
}

// sameRow reports whether r and o are the same stored digest.
func (r digestRow) sameRow(o digestRow) bool {
	return r.id == o.id && r.desk == o.desk && r.thread == o.thread && r.generation == o.generation && r.through == o.through
}

// pollDigests reads the digests stored since the last poll and, when report is true (the
// first poll only reads the newest digest, which later ones compare with), notes their
// conversations: the digests above the newest one read last, when that one is still
// there; else those among the digestReuseWindow rowids below it too.
func (w *watch) pollDigests(ctx context.Context, report bool) error {
	if !report {
		last, err := scanDigestRows(w.conn.QueryContext(ctx, newestDigestRowSQL))
		if err != nil {
			return err
		}
		if len(last) > 0 {
			w.digest = last[0]
		}
		return nil
	}
	rows, err := scanDigestRows(w.conn.QueryContext(ctx, digestsFromSQL, w.digest.id))
	if err != nil {
		return err
	}
	switch {
	case w.digest.id == 0: // none was held: every digest is new
	case len(rows) > 0 && rows[0].sameRow(w.digest):
		rows = rows[1:]
	default: // the newest digest read was deleted since: its rowid, and those below, may be given again
		// The newest digest first, then the window: a digest committed between the two
		// reads is in the window, which then sets the newest read.
		gone := w.digest.id
		last, err := scanDigestRows(w.conn.QueryContext(ctx, newestDigestRowSQL))
		if err != nil {
			return err
		}
		w.digest = digestRow{}
		if len(last) > 0 {
			w.digest = last[0]
		}
		if rows, err = scanDigestRows(w.conn.QueryContext(ctx, digestsFromSQL, max(gone-digestReuseWindow, 1))); err != nil {
			return err
		}
	}
	for _, r := range rows {
		w.convs.Add(transcript.Conversation{Desk: r.name, Thread: transcript.Sequence(r.thread)})
		w.digest = r
	}
	return nil
}

// scanDigestRows reads the digest rows of a query of digestsFromSQL's columns.
func scanDigestRows(rows *sql.Rows, err error) ([]digestRow, error) {
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []digestRow
	for rows.Next() {
		var r digestRow
		if err := rows.Scan(&r.id, &r.desk, &r.name, &r.thread, &r.generation, &r.through); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
