package pgstore_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sharedesk/transcript/pgstore"
)

// tableNames lists the tables of pool's database outside the system schemas.
func tableNames(t *testing.T, dsn string) []string {
	t.Helper()
	var names []string
	err := connect(t, dsn).QueryRow(t.Context(), `
		SELECT coalesce(array_agg(table_name::text ORDER BY table_name), '{}') FROM information_schema.tables
		WHERE table_schema NOT IN ('pg_catalog', 'information_schema')`).Scan(&names)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestOpenRefusesAnotherProgramsDatabase: a database holding another program's table and
// no store is refused, with ReadOnly too, and left as it was; InitSchema creates the store
// beside the table; a database with no table at all is initialized without it.
func TestOpenRefusesAnotherProgramsDatabase(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	dsn := newDatabase(t)
	if _, err := connect(t, dsn).Exec(ctx, `CREATE TABLE invoices (id bigint PRIMARY KEY, total bigint)`); err != nil {
		t.Fatal(err)
	}
	for _, opts := range [][]pgstore.Option{nil, {pgstore.ReadOnly()}} {
		st, err := pgstore.Open(ctx, dsn, opts...)
		if err == nil {
			st.Close()
			t.Fatalf("Open (%d options) of a database with an invoices table: succeeded", len(opts))
		}
		if len(opts) == 0 && (!errors.Is(err, pgstore.ErrNotStore) || !strings.Contains(err.Error(), "public.invoices")) {
			t.Errorf("Open: %v, want ErrNotStore naming public.invoices", err)
		}
		if got := tableNames(t, dsn); !slices.Equal(got, []string{"invoices"}) {
			t.Fatalf("after the refused Open (%d options), the tables: %v, want [invoices]", len(opts), got)
		}
	}
	st, err := pgstore.Open(ctx, dsn, pgstore.InitSchema())
	if err != nil {
		t.Fatalf("Open with InitSchema: %v", err)
	}
	st.Close()
	if got := tableNames(t, dsn); !slices.Contains(got, "invoices") || !slices.Contains(got, "transcript_messages") {
		t.Errorf("after Open with InitSchema, the tables: %v, want invoices and the store's", got)
	}
	st, err = pgstore.Open(ctx, dsn) // a store now: no InitSchema needed
	if err != nil {
		t.Fatalf("Open of the store beside invoices: %v", err)
	}
	st.Close()

	empty := newDatabase(t)
	st, err = pgstore.Open(ctx, empty)
	if err != nil {
		t.Fatalf("Open of a database with no table: %v", err)
	}
	st.Close()
}

// TestOpenUnreachable: a server that refuses the connection is said once, as a
// *pgconn.ConnectError, and the error never holds the URL's password.
func TestOpenUnreachable(t *testing.T) {
	t.Parallel()
	_, err := pgstore.Open(t.Context(), "postgres://ana:s3cret-pw@127.0.0.1:1/desks?connect_timeout=5")
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) {
		t.Fatalf("Open of an unreachable server: %v, want a *pgconn.ConnectError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "s3cret-pw") {
		t.Errorf("the error holds the password: %s", msg)
	}
	if n := strings.Count(msg, "connection refused"); n != 1 || strings.Contains(msg, "\n") {
		t.Errorf("the error says the refusal %d times, on lines %q, want once on one line: %s", n, strings.Split(msg, "\n"), msg)
	}
}
