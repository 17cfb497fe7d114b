package pgstore

import (
	"context"
	"embed"
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
// applied are recorded in transcript_schema_version. A schema newer than this package knows
// is ErrSchemaTooNew; on any error nothing changes.
func migrate(ctx context.Context, pool *pgxpool.Pool, target int) error {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.ReadCommitted})
	if err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer tx.Rollback(ctx)
	// Read committed: every statement after the lock sees what the previous holder committed.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLockKey); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
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
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("pgstore: migrate: %w", err)
	}
	return nil
}
