package pgstore_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript/pgstore"
)

// dsnEnv names the server the tests use; scripts/pgtest.sh (run by make test) sets it.
const dsnEnv = "TRANSCRIPT_PG_DSN"

const howToRun = "pgstore: " + dsnEnv + " is not set, so the PostgreSQL tests skip. " +
	"`make test` starts a throwaway PostgreSQL for them when the server binaries are installed " +
	"(/usr/lib/postgresql/15/bin: apt-get install postgresql-15); or run " +
	"scripts/pgtest.sh go test ./pgstore, or set " + dsnEnv + " to a server where the user may CREATE DATABASE"

// serverDSN returns the test server's DSN. Without one the test skips, but under CI=true,
// where PostgreSQL must be there, it fails.
func serverDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal(howToRun + " (CI=true: PostgreSQL is required)")
		}
		tb.Skip(howToRun)
	}
	return dsn
}

var (
	adminOnce sync.Once
	admin     *pgxpool.Pool
	adminErr  error
)

// adminPool returns a pool on the test server's own database, for creating and dropping
// test databases. It is shared by the package's tests and never closed.
func adminPool(tb testing.TB) *pgxpool.Pool {
	tb.Helper()
	dsn := serverDSN(tb)
	adminOnce.Do(func() {
		admin, adminErr = pgxpool.New(context.Background(), dsn)
	})
	if adminErr != nil {
		tb.Fatalf("connect to %s: %v", dsnEnv, adminErr)
	}
	return admin
}

// newDatabase creates an empty database of its own for tb, dropped when tb ends, and returns
// its DSN. Tests that each use their own database can run in parallel.
func newDatabase(tb testing.TB) string {
	tb.Helper()
	pool := adminPool(tb)
	name := "transcript_test_" + strings.ToLower(rand.Text()[:12])
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := pool.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		tb.Fatalf("create database %s: %v", name, err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := pool.Exec(ctx, "DROP DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
			tb.Errorf("drop database %s: %v", name, err)
		}
	})
	return withDatabase(tb, serverDSN(tb), name)
}

// withDatabase returns dsn naming database name instead of its own.
func withDatabase(tb testing.TB, dsn, name string) string {
	tb.Helper()
	if isURL(dsn) {
		u, err := url.Parse(dsn)
		if err != nil {
			tb.Fatalf("%s: %v", dsnEnv, err)
		}
		u.Path = "/" + name
		return u.String()
	}
	return fmt.Sprintf("%s dbname='%s'", dsn, name) // keyword/value: the last dbname wins
}

// isURL reports whether dsn is a postgres:// URL rather than keyword/value pairs.
func isURL(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// withParam returns dsn with the connection or pool parameter key set to value.
func withParam(dsn, key, value string) string {
	if !isURL(dsn) {
		return fmt.Sprintf("%s %s='%s'", dsn, key, value)
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + url.QueryEscape(key) + "=" + url.QueryEscape(value)
}

// openStore opens a Store on a new database of its own, closed when tb ends.
func openStore(tb testing.TB, opts ...pgstore.Option) (*pgstore.Store, string) {
	tb.Helper()
	dsn := newDatabase(tb)
	st, err := pgstore.Open(context.Background(), dsn, opts...)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	return st, dsn
}

// connect returns a pool on dsn, closed when tb ends.
func connect(tb testing.TB, dsn string) *pgxpool.Pool {
	tb.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		tb.Fatalf("connect: %v", err)
	}
	tb.Cleanup(pool.Close)
	return pool
}
