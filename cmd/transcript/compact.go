package main

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/pgstore"
)

func runCompact(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "compact", "[flags]", `
Remove what redactions erased from the database's files, as far as its server allows.

On PostgreSQL, a redaction leaves the erased content in the old version of the row, in its
indexes, its TOAST table, the statistics and the write-ahead log, until they are rewritten
or removed. compact rewrites the store's tables (VACUUM FULL, ANALYZE) and pg_statistic,
switches to a new WAL segment and checkpoints, which removes the older segments; with
wal_recycle on, which renames them as future segments instead, it then writes over those
(up to min_wal_size or max_wal_size of WAL). With wal_keep_size = 0, no WAL archive and no
replication slot, no file of the primary's data directory holds erased content afterwards.
It warns of each setting that keeps some. Backups, archived WAL and standbys keep their own copies. It needs a
superuser, or a role that owns the store's tables and the database, is a member of
pg_checkpoint and may execute pg_switch_wal() (and, with wal_recycle on, pg_ls_waldir(),
as pg_monitor may). Each table's reads and appends wait while it is rewritten.

On SQLite, a redaction overwrites the erased content with zeros, and the write-ahead log is
checkpointed and emptied when the last connection to the file closes: compact opens and
closes the file, which does that, and says so when a read of another process keeps the
log.`)
	var df dbflag.Flags
	fs.StringVar(&df.DB, "db", dbflag.Default, dbflag.PlainUsage)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := df.OpenExisting(ctx)
	if err != nil {
		return err
	}
	pg, ok := st.(*pgstore.Store)
	if !ok {
		if err := st.Close(); err != nil {
			return err
		}
		return reportSQLiteCompaction(e, df.DB)
	}
	defer pg.Close()
	done, err := pg.Compact(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "rewrote %s; switched to a new WAL segment and checkpointed\n", strings.Join(done.Tables, ", "))
	if done.Overwritten > 0 {
		fmt.Fprintf(e.stdout, "wal_recycle is on: wrote through %d WAL segments, over every recycled one\n", done.Overwritten)
	}
	for _, r := range done.Remains {
		fmt.Fprintf(e.stderr, "transcript: warning: %s\n", r)
	}
	if len(done.Remains) == 0 {
		_, err = fmt.Fprintln(e.stdout, "no table, index or WAL segment of the primary's data directory holds erased content any more; backups, archived WAL and standbys keep their own copies")
	}
	return err
}

// reportSQLiteCompaction says what closing the SQLite database db did: its write-ahead log
// emptied, or kept while another connection reads the file.
func reportSQLiteCompaction(e *env, db string) error {
	if info, err := os.Stat(db + "-wal"); err == nil && info.Size() > 0 {
		_, err := fmt.Fprintf(e.stdout, "%s-wal still holds %d bytes: another connection was reading the database; the last connection to close it empties the log (or run compact again once none reads it)\n", db, info.Size())
		return err
	}
	_, err := fmt.Fprintln(e.stdout, "SQLite overwrites erased content as it writes, and the write-ahead log is now checkpointed and empty: nothing more to remove")
	return err
}
