package sqlitestore

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The schema's migrations, one file per version: migrations/NNN_name.sql brings the schema
// from version NNN-1 to NNN. A file, once released, never changes; a new version is a new
// file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one step of the schema.
type migration struct {
	version int
	name    string // the file's name, for errors
	sql     string
	// step, when not nil, runs after sql in the same transaction: what SQL alone cannot do
	// (indexing the stored rows with the library's own terms).
	step func(ctx context.Context, tx *sql.Tx) error
}

// migrationSteps are the Go steps of the migrations that have one, by version.
var migrationSteps = map[int]func(ctx context.Context, tx *sql.Tx) error{
	searchIndexVersion: newSearchKey,
	threadIndexVersion: staleSearchIndex,
}

// SchemaVersion is the version of the schema this package creates and reads: the number of
// its migrations.
const SchemaVersion = 15

// migrations is every migration, in version order, checked at start-up to number 1, 2, ...,
// SchemaVersion.
var migrations = func() []migration {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		panic(err) // a constant pattern: cannot fail
	}
	var ms []migration
	for i, name := range names { // fs.Glob sorts names
		base := path.Base(name)
		prefix, _, _ := strings.Cut(base, "_")
		version, err := strconv.Atoi(prefix)
		if err != nil || version != i+1 {
			panic(fmt.Sprintf("sqlitestore: migration %s is not version %d", base, i+1))
		}
		text, err := migrationFiles.ReadFile(name)
		if err != nil {
			panic(err)
		}
		ms = append(ms, migration{version: version, name: base, sql: string(text), step: migrationSteps[version]})
	}
	if len(ms) != SchemaVersion {
		panic(fmt.Sprintf("sqlitestore: %d migrations, want SchemaVersion = %d", len(ms), SchemaVersion))
	}
	return ms
}()

// migrateRetrying migrates db to SchemaVersion, trying again while SQLite reports the file
// busy, for up to wait: processes opening a new file at once race to put it in WAL mode, and
// SQLite answers the loser SQLITE_BUSY without waiting for the busy timeout.
func migrateRetrying(ctx context.Context, db *sql.DB, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		_, err := migrate(ctx, db, SchemaVersion)
		if !isBusy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// isBusy reports whether err is SQLite's SQLITE_BUSY, with any extended code.
func isBusy(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// migrate brings the schema of db to version target in one IMMEDIATE transaction, so that a
// failed step leaves the database as it was and two processes opening the same new file
// migrate it once: the second waits for the write lock (busy_timeout), then finds the
// schema current. It returns the version it found. It initializes only a database that
// holds nothing yet; another program's database is an error matching ErrNotStore (for
// explainOpen to name the file), and a database newer than target is a *SchemaError; both
// are left as they were. At searchIndexVersion and later it also rebuilds the search index,
// once, when a migration marked it stale or its terms were computed with other Unicode
// tables (syncTermsVersion). Then, and only for a store, it puts the file in WAL mode (a
// no-op for a file in it already), which a transaction cannot do: a file classified as
// another program's is never switched.
func migrate(ctx context.Context, db *sql.DB, target int) (found int, err error) {
	tx, err := db.BeginTx(ctx, nil) // BEGIN IMMEDIATE: see the writer's DSN
	if err != nil {
		return 0, fmt.Errorf("migrating the schema: %w", err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	state, found, err := classify(ctx, tx) // again, under the write lock: the file may have changed since inspect
	if err != nil {
		return 0, err
	}
	if state == fileEmpty {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE schema_version (version INTEGER NOT NULL)`); err != nil {
			return 0, fmt.Errorf("creating the schema_version table: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_version (version) VALUES (0)`); err != nil {
			return 0, fmt.Errorf("initializing the schema version: %w", err)
		}
	}
	if found > target {
		return found, &SchemaError{Found: found, Known: target}
	}
	for _, m := range migrations[found:target] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return found, fmt.Errorf("migrating the schema from version %d to %d (%s): %w", m.version-1, m.version, m.name, err)
		}
		if m.step == nil {
			continue
		}
		if err := m.step(ctx, tx); err != nil {
			return found, fmt.Errorf("migrating the schema from version %d to %d (%s): %w", m.version-1, m.version, m.name, err)
		}
	}
	if target >= searchIndexVersion {
		if err := syncTermsVersion(ctx, tx); err != nil {
			return found, fmt.Errorf("migrating the schema: %w", err)
		}
	}
	if found < target {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_version SET version = ?`, target); err != nil {
			return found, fmt.Errorf("recording schema version %d: %w", target, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return found, fmt.Errorf("committing the schema migration: %w", err)
	}
	if _, err := db.ExecContext(ctx, `PRAGMA journal_mode = WAL`); err != nil {
		return found, fmt.Errorf("putting the file in WAL mode: %w", err)
	}
	return found, nil
}
