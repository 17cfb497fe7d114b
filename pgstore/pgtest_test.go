package pgstore_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript/internal/pgtest"
	"github.com/sharedesk/transcript/pgstore"
)

func serverDSN(tb testing.TB) string { tb.Helper(); return pgtest.ServerDSN(tb, "pgstore") }

func adminPool(tb testing.TB) *pgxpool.Pool { tb.Helper(); return pgtest.Admin(tb, "pgstore") }

func newDatabase(tb testing.TB) string { tb.Helper(); return pgtest.Database(tb, "pgstore") }

func withDatabase(tb testing.TB, dsn, name string) string {
	tb.Helper()
	return pgtest.WithDatabase(tb, dsn, name)
}

func isURL(dsn string) bool { return pgtest.IsURL(dsn) }

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
