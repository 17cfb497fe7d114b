package pgstore

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrationFiles holds the schema, one file per version: NNNN_name.sql, applied in order.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrationLockKey is the pg_advisory_xact_lock key under which the schema is migrated:
// "transcri" in ASCII, so it does not collide with a host's own small lock numbers.
const migrationLockKey int64 = 0x7472616e73637269

// migration is one version of the schema.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations is every version of the schema, in order: migrations[i] is version i+1.
var migrations = mustLoadMigrations(migrationFiles)

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err) // the embedded files are part of the package: a bad one is a build mistake
	}
	return ms
}

// loadMigrations reads migrations/NNNN_name.sql and checks that the versions run 1, 2, ...
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for i, file := range names { // fs.Glob sorts
		base := strings.TrimSuffix(path.Base(file), ".sql")
		num, name, _ := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if err != nil || version != i+1 {
			return nil, fmt.Errorf("pgstore: migration %s: want version %d", file, i+1)
		}
		sql, err := fs.ReadFile(fsys, file)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: version, name: name, sql: string(sql)})
	}
	return ms, nil
}

// migrate brings the schema up to version target (at most len(migrations)) in one
// transaction that holds an advisory lock, so that of several processes opening the same
// database at once, one migrates and the others then find the work done. The versions
// applied are recorded in transcript_schema_version. At termsIndexVersion or later, the
// search index is then rebuilt in Go if it was not built with this program's Terms
// (syncTerms), telling progress (which may be nil) how it goes. A schema newer than this
// package knows is ErrSchemaTooNew. A database holding other tables but no store is
// ErrNotStore unless beside is set (InitSchema). On any error nothing changes.
func migrate(ctx context.Context, pool *pgxpool.Pool, target int, beside bool, progress IndexProgress) error {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	// Read committed: every statement after the lock sees what the previous holder committed.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	if !beside {
		if err := checkNoForeignTables(ctx, tx); err != nil {
			return err
		}
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS transcript_schema_version (
		version    integer     PRIMARY KEY,
		name       text        NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	var current int
	if err := tx.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM transcript_schema_version`).Scan(&current); err != nil {
		return fmt.Errorf("pgstore: migrate: read the schema version: %w", err)
	}
	if current > len(migrations) {
		return fmt.Errorf("%w: database at version %d, this package knows up to %d", ErrSchemaTooNew, current, len(migrations))
	}
	for _, m := range migrations[min(current, target):target] {
		// No arguments: pgx sends the file with the simple protocol, several statements at once.
		if _, err := tx.Exec(ctx, m.sql); err != nil {
			return fmt.Errorf("pgstore: migrate to version %d (%s): %w", m.version, m.name, err)
		}
		if _, err := tx.Exec(ctx, `INSERT INTO transcript_schema_version (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return fmt.Errorf("pgstore: migrate to version %d (%s): %w", m.version, m.name, err)
		}
	}
	if max(current, target) >= termsIndexVersion {
		if err := syncTerms(ctx, tx, progress); err != nil {
			return fmt.Errorf("pgstore: migrate: rebuild the search index: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	return nil
}

// checkNoForeignTables returns nil when q's database holds a store (its
// transcript_schema_version table) or no table at all, and otherwise an error matching
// ErrNotStore that names the database and a few of its tables.
func checkNoForeignTables(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}) error {
	var database string
	var tables []string
	err := q.QueryRow(ctx, `
		SELECT current_database(), coalesce((
			SELECT array_agg(t ORDER BY t) FROM (
				SELECT quote_ident(n.nspname) || '.' || quote_ident(c.relname) AS t
				FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace
				WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f')
				  AND n.nspname NOT IN ('pg_catalog', 'information_schema')
				  AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp\_%'
				ORDER BY 1 LIMIT 6) AS found), '{}')
		WHERE to_regclass('transcript_schema_version') IS NULL`).Scan(&database, &tables)
	switch {
	case errors.Is(err, pgx.ErrNoRows): // a store's
		return nil
	case err != nil:
		return fmt.Errorf("pgstore: migrate: list the tables: %w", err)
	case len(tables) == 0:
		return nil
	}
	return &NotStoreError{Database: database, Tables: tables}
}

// NotStoreError is a database holding other tables but no store, which Open and New leave
// unchanged. It matches ErrNotStore.
type NotStoreError struct {
	Database string
	Tables   []string // a few of them, and one more when there are more
}

func (e *NotStoreError) Error() string {
	return fmt.Sprintf("pgstore: database %q holds other tables (%s) but no transcript store; it was left unchanged", e.Database, e.ShownTables())
}

// ShownTables lists the first five of Tables, and "..." when there are more.
func (e *NotStoreError) ShownTables() string {
	shown := strings.Join(e.Tables[:min(len(e.Tables), 5)], ", ")
	if len(e.Tables) > 5 {
		shown += ", ..."
	}
	return shown
}

// Is reports that every NotStoreError matches ErrNotStore.
func (e *NotStoreError) Is(target error) bool { return target == ErrNotStore }
