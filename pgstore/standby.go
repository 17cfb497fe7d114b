package pgstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultStandbyWait is how long, by default, a read waits for a standby to replay a row
// the Store knows is committed before it reads from the primary (WithStandbyWait).
const DefaultStandbyWait = time.Second

// The timing of a Store's standbys: how long Open waits for a standby to replay the
// primary's schema; how long a standby that failed is skipped, from standbyRetryFirst,
// doubling with each failure in a row, to standbyRetryMost; how long a standby that did not
// catch up within the wait is not waited for again (its answers are still taken when they
// hold what a read needs); and the pauses between two looks at a lagging standby.
const (
	standbyOpenWait   = 10 * time.Second
	standbyRetryFirst = 100 * time.Millisecond
	standbyRetryMost  = 5 * time.Second
	lagCooldown       = 5 * time.Second
	lagPollFirst      = 250 * time.Microsecond
	lagPollMost       = 16 * time.Millisecond
)

// standbyAttempt bounds one query on a standby: a standby that keeps its connections but
// stops answering (a network partition, a frozen machine) fails the query after it, is
// skipped like any failed standby, and the read moves on to the next standby or the
// primary. A page read takes milliseconds; two seconds is a standby that is not answering.
const standbyAttempt = 2 * time.Second

// attempt returns ctx bounded by standbyAttempt, for one query on a standby.
func attempt(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, standbyAttempt)
}

// WithStandbys makes the Store read its Logs from these hot standbys of its database
// (streaming replicas of the primary Open or New is given), spread over them in turn, and
// from the primary when none of them can answer; see "Standbys" in the package
// documentation for what a read then sees. Each dsn is read as Open reads its own; each
// standby gets a pool of its own, which Close closes. Open and New check that each standby
// is in recovery, is a copy of the primary's database (when the server lets
// pg_control_system be read) and has replayed the primary's schema (waiting up to 10 s for
// it): a standby behind is an error matching ErrSchemaBehind that names both versions, and
// one that is no standby, a copy of another database, or that refuses the connection (a
// password, TLS) an error too. A standby that cannot be reached (its server down, starting
// or full, its name not found, no answer within 2 s) is no error: it is reported
// (WithStandbyReport), reads skip it, try it again as they do a standby that failed, and
// check it as Open would have once it answers; one found then to be no standby, a copy of
// another database, or at a newer schema, is reported and never read from.
// Appends, tokens, books, Desks, LookupKeys and Watch stay on the primary.
func WithStandbys(dsns ...string) Option {
	return func(s *Store) error {
		for i, dsn := range dsns {
			cfg, err := pgxpool.ParseConfig(dsn)
			if err != nil {
				return fmt.Errorf("pgstore: WithStandbys: standby %d: %w", i+1, err) // pgconn redacts the password
			}
			s.replicas.configs = append(s.replicas.configs, cfg)
		}
		return nil
	}
}

// WithStandbyReport gives the Store a function to hand each standby it sets aside: one
// Open could not reach (reads skip it until it answers, and check it then), one that check
// then finds to be no standby of the primary's database, or at a newer schema (never read
// from), and, once, one whose check then fails as Open would have failed (a refused
// password, a missing database: checked again later). Each error names the standby by host, port and database, never its password,
// and says why; report may be called from Open and from any read, concurrently. A standby
// that fails after it was checked is not reported: reads move on, and try it again.
func WithStandbyReport(report func(error)) Option {
	return func(s *Store) error {
		s.replicas.report = report
		return nil
	}
}

// WithStandbyWait sets how long a read through a Store with standbys waits for a standby to
// replay the rows it needs (DefaultStandbyWait by default) before it reads from the
// primary. 0 reads from the primary at once. d must not be negative.
func WithStandbyWait(d time.Duration) Option {
	return func(s *Store) error {
		if d < 0 {
			return fmt.Errorf("pgstore: WithStandbyWait(%v): the wait must not be negative", d)
		}
		s.replicas.wait = d
		return nil
	}
}

// ReadOnly opens the Store read-only, on a primary as on a standby: Open and New check the
// schema's version instead of migrating it, and every write (Append, AppendBatch, AddToken,
// RevokeToken, SaveBook) is refused with ErrReadOnly. A database in recovery (a standby) is
// opened so without it.
func ReadOnly() Option {
	return func(s *Store) error {
		s.readOnly = "it was opened with ReadOnly"
		return nil
	}
}

// inRecovery reports whether pool's server is a standby (pg_is_in_recovery).
func inRecovery(ctx context.Context, pool *pgxpool.Pool) (bool, error) {
	var recovery bool
	err := pool.QueryRow(ctx, `SELECT pg_is_in_recovery()`).Scan(&recovery)
	return recovery, err
}

// readVersion returns the newest schema version pool's database records, 0 when it has
// none (no transcript_schema_version table).
func readVersion(ctx context.Context, pool *pgxpool.Pool) (int, error) {
	var v int
	err := pool.QueryRow(ctx, `SELECT coalesce(max(version), 0) FROM transcript_schema_version`).Scan(&v)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table: never migrated
		return 0, nil
	}
	return v, err
}

// checkReadOnlySchema checks, for a read-only Store, that its database's schema is the one
// this package migrates to, without changing it.
func (s *Store) checkReadOnlySchema(ctx context.Context) error {
	v, err := readVersion(ctx, s.pool)
	if err == nil && v == 0 {
		err = checkNoForeignTables(ctx, s.pool) // another program's database is not a store behind
		if errors.Is(err, ErrNotStore) {
			return err
		}
	}
	switch {
	case err != nil:
		return fmt.Errorf("pgstore: open: read the schema version: %w", err)
	case v > len(migrations):
		return fmt.Errorf("%w: database at version %d, this package knows up to %d", ErrSchemaTooNew, v, len(migrations))
	case v == 0 && !s.recovery:
		return fmt.Errorf("%w: the database holds no transcript store yet (schema version 0; this package reads version %d), and a read-only store does not create one",
			ErrSchemaBehind, len(migrations))
	case v < len(migrations) && !s.recovery:
		return fmt.Errorf("%w: the database is at schema version %d, this package reads version %d, and a read-only store does not migrate it",
			ErrSchemaBehind, v, len(migrations))
	case v < len(migrations):
		return fmt.Errorf("%w: the database is at schema version %d, this package needs version %d, and the store may not migrate it (%s): open the primary with this package, and let its standbys replay the change",
			ErrSchemaBehind, v, len(migrations), s.readOnly)
	}
	return nil
}

// identity is what tells one PostgreSQL database from another: its cluster's system
// identifier, which a standby shares with its primary, and the database's OID.
type identity struct {
	system int64
	oid    uint32
	known  bool // false: the server does not let pg_control_system be read
}

func databaseIdentity(ctx context.Context, pool *pgxpool.Pool) (identity, error) {
	var id identity
	err := pool.QueryRow(ctx, `SELECT system_identifier, (SELECT oid FROM pg_database WHERE datname = current_database()) FROM pg_control_system()`).Scan(&id.system, &id.oid)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" { // insufficient_privilege
		return identity{}, nil
	}
	id.known = err == nil
	return id, err
}

// unreachable reports whether err, from checking or reading a standby, says that the
// standby could not be reached or answer just then, rather than what it is: a connection
// refused, reset or lost, a name not found (a standby not started yet, say), no answer
// within standbyAttempt, or the server's own word that it is starting, stopping or full
// (cannot_connect_now, admin_shutdown, crash_shutdown, too_many_connections, a
// connection_exception). Any other answer of the server's (a refused password, a missing
// database), and a failure of TLS or of the connection's settings, says the standby is not
// usable as given.
func unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "57P01", "57P02", "57P03", "53300":
			return true
		}
		return strings.HasPrefix(pgErr.Code, "08")
	}
	var netErr net.Error
	return errors.As(err, &netErr) || pgconn.Timeout(err) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
}

// check checks the standby as open says, waiting up to wait for its schema.
func (sb *standby) check(ctx context.Context, primary identity, want int, wait time.Duration) error {
	deadline := time.Now().Add(wait)
	for {
		actx, cancel := attempt(ctx)
		v, err := sb.checkOnce(actx, primary)
		cancel()
		var pgErr *pgconn.PgError
		switch {
		case errors.As(err, &pgErr) && pgErr.Code == "3D000" && time.Now().Before(deadline):
			// invalid_catalog_name: the standby has not replayed the database's creation yet
		case err != nil:
			return err
		case v > want:
			return sb.tooNew(v, want)
		case v == want:
			return nil
		case !time.Now().Before(deadline):
			return fmt.Errorf("%w: standby %s is at schema version %d, the primary at version %d, after %v: is it replaying the primary?",
				ErrSchemaBehind, sb.name, v, want, wait)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgstore: standby %s: %w", sb.name, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// errNotStandby and errOtherDatabase are what checkOnce finds a server that is no standby
// of the primary's database to be: a definite answer, where its other errors may pass.
var (
	errNotStandby    = errors.New("it is no standby (give a primary as the store's own DSN)")
	errOtherDatabase = errors.New("it is not a copy of the primary's database")
)

// tooNew is the error of a standby at schema version v, newer than this package's, want.
func (sb *standby) tooNew(v, want int) error {
	return fmt.Errorf("%w: standby %s at version %d, this package knows up to %d", ErrSchemaTooNew, sb.name, v, want)
}

// checkOnce checks that the standby is in recovery and a copy of primary, and returns its
// schema version.
func (sb *standby) checkOnce(ctx context.Context, primary identity) (int, error) {
	recovery, err := inRecovery(ctx, sb.pool)
	if err != nil {
		return 0, fmt.Errorf("pgstore: standby %s: %w", sb.name, err)
	}
	if !recovery {
		return 0, fmt.Errorf("pgstore: standby %s is not in recovery: %w", sb.name, errNotStandby)
	}
	id, err := databaseIdentity(ctx, sb.pool)
	if err != nil {
		return 0, fmt.Errorf("pgstore: standby %s: its identity: %w", sb.name, err)
	}
	if id.known && primary.known && id != primary {
		return 0, fmt.Errorf("pgstore: standby %s: %w (system identifier %d, database OID %d; the primary's: %d, %d)",
			sb.name, errOtherDatabase, id.system, id.oid, primary.system, primary.oid)
	}
	v, err := readVersion(ctx, sb.pool)
	if err != nil {
		return 0, fmt.Errorf("pgstore: standby %s: read the schema version: %w", sb.name, err)
	}
	return v, nil
}
