package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// ErrCompactPrivilege is returned by Compact when its role may not do one of its steps:
// the error names the step and the role or privilege that allows it.
var ErrCompactPrivilege = errors.New("pgstore: compact needs more privileges")

// Compaction is what Compact did, and what it found on the server that keeps erased
// content beyond it.
type Compaction struct {
	// Tables are the tables Compact rewrote, as PostgreSQL names them: the store's own
	// (transcript_*) and pg_statistic.
	Tables []string
	// Overwritten is how many WAL segments Compact wrote through to write over recycled
	// ones (with wal_recycle on): 0 with it off.
	Overwritten int
	// Remains says, one sentence each, which of the server's settings and states, as
	// Compact found them, keep erased content in files it cannot reach (wal_keep_size, a
	// WAL archive, replication slots, standbys, recycled WAL segments it may not list):
	// empty when none does. The package documentation lists the places no setting shows
	// (backups, logs, the disk's free blocks).
	Remains []string
}

// Compact removes the content that redactions committed before it began erased from the
// files of the primary's data directory, as far as the server allows, in these steps:
//
//   - VACUUM (FULL, ANALYZE) of every table of the store (all named transcript_*, in the
//     schema of its version table): each is written anew, with its TOAST table and its
//     indexes, from its live rows only, and the files of the old copies, dead rows and
//     erased index keys included, are emptied at once and unlinked at the next checkpoint;
//     ANALYZE replaces the statistics (pg_statistic's sampled values), which may quote
//     erased words;
//   - VACUUM FULL pg_statistic, which leaves none of the old statistics in its files;
//   - pg_switch_wal(), so that the WAL written up to here, the erased content's included,
//     lies in segments before the current one;
//   - CHECKPOINT, which removes the segments before its own: unlinked with wal_recycle =
//     off, renamed as future segments, not rewritten, with it on. A WAL archive
//     (archive_mode), wal_keep_size and replication slots keep segments it would remove;
//   - with wal_recycle on, writing over every future segment: it switches segments, each
//     switch after a commit (of a transaction id, pg_current_xact_id()) so that there is
//     one to end, until the server writes past the last segment pg_wal held. A switch
//     fills the rest of its segment, so every recycled segment is written through. This
//     writes as many segments (16 MB each by default) as pg_wal held ahead, which
//     min_wal_size and max_wal_size bound, and needs pg_ls_waldir() (a superuser or pg_monitor) to
//     list them; without it, this step is left out and Remains says so.
//
// Each step must do what it says, or Compact fails: its role must be a superuser, or hold
// pg_checkpoint (PostgreSQL 15 and later) and EXECUTE on pg_switch_wal(), own the store's
// tables or the database (or hold MAINTAIN on them), and own the database for
// pg_statistic; otherwise the error, matching ErrCompactPrivilege, names what is missing,
// and the steps from there on are not taken (the earlier ones have done their part, and
// running Compact again is safe). A read-only Store is refused with ErrReadOnly.
//
// Each VACUUM FULL holds its table's lock while it rewrites it: reads and appends of every
// desk wait for it, for about the time it takes to copy the table. It waits for the lock at
// most compactLockWait (1 s), and fails then, when a transaction open elsewhere holds the
// table. A session that holds a snapshot while the tables are rewritten keeps the erased
// row versions it may see in the new files; Remains says so. Canceling ctx stops the
// step under way, which leaves its table as it was.
func (s *Store) Compact(ctx context.Context) (Compaction, error) {
	if err := s.writable("compact"); err != nil {
		return Compaction{}, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return Compaction{}, fmt.Errorf("pgstore: compact: %w", err)
	}
	defer conn.Release()
	c := conn.Conn()
	var can compactPrivileges
	if err := c.QueryRow(ctx, compactPrivilegesSQL).Scan(&can.role, &can.superuser, &can.checkpoint, &can.switchWAL, &can.listWAL, &can.recycle); err != nil {
		return Compaction{}, fmt.Errorf("pgstore: compact: reading the role's privileges: %w", err)
	}
	if err := can.check(); err != nil {
		return Compaction{}, err
	}
	tables, err := storeTables(ctx, c)
	if err != nil {
		return Compaction{}, err
	}
	var done Compaction
	// A rewrite waits for a table's lock at most compactLockWait, so that the reads and
	// appends that queue behind it never wait on a transaction left open elsewhere.
	if _, err := c.Exec(ctx, fmt.Sprintf("SET lock_timeout = %d", compactLockWait.Milliseconds())); err != nil {
		return done, fmt.Errorf("pgstore: compact: %w", err)
	}
	defer c.Exec(context.WithoutCancel(ctx), "RESET lock_timeout")
	snapshots, err := otherSnapshots(ctx, c)
	if err != nil {
		return done, err
	}
	if err := vacuumFull(ctx, c, can.role, "(FULL, ANALYZE)", tables); err != nil {
		return done, err
	}
	done.Tables = append(done.Tables, tables...)
	if err := vacuumFull(ctx, c, can.role, "(FULL)", []string{"pg_catalog.pg_statistic"}); err != nil {
		return done, err
	}
	done.Tables = append(done.Tables, "pg_statistic")
	if _, err := c.Exec(ctx, `SELECT pg_switch_wal()`); err != nil {
		return done, fmt.Errorf("pgstore: compact: switching WAL segments: %w", err)
	}
	if _, err := c.Exec(ctx, `CHECKPOINT`); err != nil {
		return done, fmt.Errorf("pgstore: compact: checkpoint: %w", err)
	}
	if can.recycle && (can.superuser || can.listWAL) {
		if done.Overwritten, err = overwriteRecycled(ctx, c); err != nil {
			return done, err
		}
	}
	if done.Remains, err = walRemains(ctx, c, can); err != nil {
		return done, err
	}
	if snapshots > 0 {
		done.Remains = append(done.Remains, fmt.Sprintf("%s held a snapshot while the tables were rewritten (a transaction open in another session, a pg_dump, a prepared transaction): VACUUM FULL copied the erased row versions it could still see into the new files; compact again once it has ended", howMany(snapshots, "a session", "sessions")))
	}
	return done, nil
}

// compactLockWait is how long Compact's rewrite of a table waits for the table's lock
// before it fails, naming the lock: a transaction left open elsewhere holds it.
const compactLockWait = time.Second

// otherSnapshots counts the other sessions of the server, and its prepared transactions,
// that hold a snapshot: the row versions it may still see, erased ones among them, are
// kept by a rewrite.
func otherSnapshots(ctx context.Context, c *pgx.Conn) (int64, error) {
	var n int64
	err := c.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_stat_activity WHERE backend_xmin IS NOT NULL AND pid <> pg_backend_pid())
		+ (SELECT count(*) FROM pg_prepared_xacts)`).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("pgstore: compact: reading the sessions that hold snapshots: %w", err)
	}
	return n, nil
}

// overwriteRecycled writes over every WAL segment ahead of the current one, as Compact's
// last step says, and returns how many segments it switched out of.
func overwriteRecycled(ctx context.Context, c *pgx.Conn) (int, error) {
	var last string
	var ahead int
	if err := c.QueryRow(ctx, `SELECT coalesce(max(name), ''), count(*) FROM pg_ls_waldir()
		WHERE name ~ '^[0-9A-F]{24}$' AND name > pg_walfile_name(pg_current_wal_insert_lsn())`).Scan(&last, &ahead); err != nil {
		return 0, fmt.Errorf("pgstore: compact: listing pg_wal: %w", err)
	}
	for switches := 0; ; switches++ {
		// A commit puts the insert position past the segment's first page, so that the
		// segment named is the one being written, and gives the switch something to end.
		var current string
		if _, err := c.Exec(ctx, `SELECT pg_current_xact_id()`); err != nil {
			return switches, fmt.Errorf("pgstore: compact: writing over recycled WAL segments: %w", err)
		}
		if err := c.QueryRow(ctx, `SELECT pg_walfile_name(pg_current_wal_insert_lsn())`).Scan(&current); err != nil {
			return switches, fmt.Errorf("pgstore: compact: writing over recycled WAL segments: %w", err)
		}
		if current > last {
			return switches, nil
		}
		// Every switch but a concurrent one moves on by a segment: more than twice the
		// segments ahead means the server is not doing what it says.
		if switches > 2*ahead+2 {
			return switches, fmt.Errorf("pgstore: compact: writing over recycled WAL segments: still in %s after %d switches, short of %s", current, switches, last)
		}
		if _, err := c.Exec(ctx, `SELECT pg_switch_wal()`); err != nil {
			return switches, fmt.Errorf("pgstore: compact: writing over recycled WAL segments: %w", err)
		}
	}
}

// compactPrivilegesSQL reads the session's role, whether it is a superuser, whether it may
// CHECKPOINT (pg_checkpoint's privileges, PostgreSQL 15 and later), run pg_switch_wal() and
// list pg_wal (pg_ls_waldir()), and whether the server recycles WAL segments.
const compactPrivilegesSQL = `SELECT current_user::text,
	coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = current_user), false),
	EXISTS (SELECT FROM pg_roles WHERE rolname = 'pg_checkpoint' AND pg_has_role(current_user, oid, 'USAGE')),
	has_function_privilege('pg_catalog.pg_switch_wal()', 'EXECUTE'),
	has_function_privilege('pg_catalog.pg_ls_waldir()', 'EXECUTE'),
	current_setting('wal_recycle')::bool`

// compactPrivileges are what Compact needs of its role beyond the tables, and the server's
// wal_recycle.
type compactPrivileges struct {
	role                                      string
	superuser, checkpoint, switchWAL, listWAL bool
	recycle                                   bool
}

// check returns an error matching ErrCompactPrivilege that names what the role lacks, or
// nil.
func (p compactPrivileges) check() error {
	if p.superuser {
		return nil
	}
	var missing []string
	if !p.checkpoint {
		missing = append(missing, "CHECKPOINT needs a superuser or a member of pg_checkpoint (PostgreSQL 15 and later)")
	}
	if !p.switchWAL {
		missing = append(missing, "pg_switch_wal() needs a superuser or EXECUTE on it (GRANT EXECUTE ON FUNCTION pg_switch_wal() TO ...)")
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("%w: role %q: %s", ErrCompactPrivilege, p.role, strings.Join(missing, "; "))
}

// storeTables returns the store's tables, each as PostgreSQL names it in SQL (quoted,
// qualified by its schema when the search path does not find it): every table named
// transcript_* in the schema of transcript_schema_version, the one the store's statements
// find.
func storeTables(ctx context.Context, c *pgx.Conn) ([]string, error) {
	rows, err := c.Query(ctx, `SELECT t.oid::regclass::text FROM pg_class t
		WHERE t.relnamespace = (SELECT relnamespace FROM pg_class WHERE oid = to_regclass('transcript_schema_version'))
			AND t.relkind = 'r' AND t.relname LIKE 'transcript\_%'
		ORDER BY t.relname`)
	if err != nil {
		return nil, fmt.Errorf("pgstore: compact: listing the store's tables: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("pgstore: compact: listing the store's tables: %w", err)
	}
	if len(tables) == 0 {
		return nil, fmt.Errorf("pgstore: compact: the store's tables are not on the search path")
	}
	return tables, nil
}

// vacuumFull runs VACUUM with options on tables, then checks that each was written anew (its
// file node changed): PostgreSQL skips, with a warning, a table its role may not vacuum,
// which is then an error matching ErrCompactPrivilege.
func vacuumFull(ctx context.Context, c *pgx.Conn, role, options string, tables []string) error {
	before, err := fileNodes(ctx, c, tables)
	if err != nil {
		return err
	}
	if _, err := c.Exec(ctx, "VACUUM "+options+" "+strings.Join(tables, ", ")); err != nil {
		return fmt.Errorf("pgstore: compact: VACUUM %s %s: %w", options, strings.Join(tables, ", "), err)
	}
	after, err := fileNodes(ctx, c, tables)
	if err != nil {
		return err
	}
	var skipped []string
	for i, t := range tables {
		if after[i] == before[i] {
			skipped = append(skipped, t)
		}
	}
	if len(skipped) > 0 {
		return fmt.Errorf("%w: role %q may not vacuum %s: its owner, the database's owner, a superuser (or, from PostgreSQL 17, a role with MAINTAIN on it) may", ErrCompactPrivilege, role, strings.Join(skipped, ", "))
	}
	return nil
}

// fileNodes returns the file node of each of tables, in order.
func fileNodes(ctx context.Context, c *pgx.Conn, tables []string) ([]uint32, error) {
	rows, err := c.Query(ctx, `SELECT pg_relation_filenode(to_regclass(t))::bigint FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i`, tables)
	if err != nil {
		return nil, fmt.Errorf("pgstore: compact: reading the tables' files: %w", err)
	}
	nodes, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("pgstore: compact: reading the tables' files: %w", err)
	}
	out := make([]uint32, len(nodes))
	for i, n := range nodes {
		out[i] = uint32(n)
	}
	return out, nil
}

// walRemains reads the settings and states of the server that keep WAL segments, and
// with them erased content, beyond Compact, and says what each keeps.
func walRemains(ctx context.Context, c *pgx.Conn, can compactPrivileges) ([]string, error) {
	var archive string
	var keepMB, slots, standbys int64
	err := c.QueryRow(ctx, `SELECT current_setting('archive_mode'),
		(SELECT setting::bigint FROM pg_settings WHERE name = 'wal_keep_size'),
		(SELECT count(*) FROM pg_replication_slots),
		(SELECT count(*) FROM pg_stat_replication)`).Scan(&archive, &keepMB, &slots, &standbys)
	if err != nil {
		return nil, fmt.Errorf("pgstore: compact: reading the server's WAL settings: %w", err)
	}
	var remains []string
	if can.recycle && !can.superuser && !can.listWAL {
		remains = append(remains, fmt.Sprintf("wal_recycle is on, and role %q may not list pg_wal (pg_ls_waldir(): a superuser or pg_monitor): the checkpoint renamed WAL segments that may hold erased content as future segments, without rewriting them, and they keep it until the server writes over them (grant pg_monitor, or set wal_recycle = off, then compact again)", can.role))
	}
	if keepMB > 0 {
		remains = append(remains, fmt.Sprintf("wal_keep_size is %d MB: pg_wal keeps that much WAL, erased content included, until as much more is written", keepMB))
	}
	if archive != "off" {
		remains = append(remains, fmt.Sprintf("archive_mode is %s: archive_command or archive_library copies every WAL segment, erased content included, to an archive that keeps it until it is purged, and pg_wal keeps each segment until it is archived", archive))
	}
	if slots > 0 {
		remains = append(remains, fmt.Sprintf("%s: pg_wal keeps every segment a slot still needs, erased content included, and a logical slot's spill files may hold it", howMany(slots, "a replication slot", "replication slots")))
	}
	if standbys > 0 {
		remains = append(remains, fmt.Sprintf("%s streaming: each replays the rewrite, but keeps erased content in its own pg_wal until its restartpoints remove the segments (CHECKPOINT on a standby makes one), under its own wal_recycle", howMany(standbys, "a standby", "standbys")))
	}
	return remains, nil
}

// howMany says n things: one, or n and the plural.
func howMany(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}
