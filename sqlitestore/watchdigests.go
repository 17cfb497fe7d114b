package sqlitestore

import (
	"context"

	"github.com/sharedesk/transcript"
)

// The statements of WatchDigests' poll: the digests above an id, a range of the table's ids
// (the digests stored since the last poll), with their desks' names; and the newest digest's
// id, 0 when none is held, one probe of the ids' end. Neither reads a digest's text.
const (
	digestsAboveSQL = `
SELECT digests.id, desks.name, digests.thread
FROM digests JOIN desks ON desks.id = digests.desk
WHERE digests.id > ?1
ORDER BY digests.id`
	newestDigestIDSQL = `SELECT ifnull(max(id), 0) FROM digests`
)

// pollDigests reads the digests stored since the last poll and, when report is true, notes
// their conversations; the first poll (report false) reads only the newest digest's id,
// which later ones compare with. A digest's id is never given again
// (migrations/014_digest_ids.sql), so every digest stored since the last poll has an id
// above the newest one read then.
func (w *watch) pollDigests(ctx context.Context, report bool) error {
	if !report {
		return w.conn.QueryRowContext(ctx, newestDigestIDSQL).Scan(&w.digest)
	}
	rows, err := w.conn.QueryContext(ctx, digestsAboveSQL, w.digest)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var (
			id     int64
			name   string
			thread int64
		)
		if err := rows.Scan(&id, &name, &thread); err != nil {
			return err
		}
		w.convs.Add(transcript.Conversation{Desk: name, Thread: transcript.Sequence(thread)})
		w.digest = id
	}
	return rows.Err()
}
