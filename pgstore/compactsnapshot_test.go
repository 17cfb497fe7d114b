package pgstore_test

import (
	"strings"
	"testing"

	"github.com/sharedesk/transcript/internal/pgtest"
)

// TestCompactSaysASnapshotKeepsErasedRows: a session holding a snapshot taken before the
// redactions (a REPEATABLE READ transaction: a pg_dump, a report, an idle client) makes
// VACUUM FULL copy the erased row versions it may still see into the new table files;
// Compact's Remains then says so, and names no such state when no session holds one.
func TestCompactSaysASnapshotKeepsErasedRows(t *testing.T) {
	server, st, admin := compactServer(t, pgtest.ErasureConf)
	ctx := t.Context()
	other := connect(t, server.DSN)
	conn, err := other.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	words := pgtest.WriteErasedWords(t, st, "eng", 30, func() {
		if _, err := conn.Exec(ctx, `BEGIN ISOLATION LEVEL REPEATABLE READ`); err != nil {
			t.Fatal(err)
		}
		var n int64
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_class`).Scan(&n); err != nil {
			t.Fatal(err)
		}
	})
	_ = admin
	done, err := st.Compact(ctx)
	if err != nil {
		t.Fatalf("Compact: %v", err)
	}
	found := filesHolding(t, server, words.Erased)
	held := 0
	for _, w := range words.Erased {
		if len(found[w]) > 0 {
			held++
		}
	}
	said := strings.Contains(strings.Join(done.Remains, "\n"), "held a snapshot")
	if held > 0 && !said {
		t.Errorf("%d of %d erased words remain in the data directory, and Compact's Remains says nothing of the snapshot: %q", held, len(words.Erased), done.Remains)
	}
	conn.Exec(ctx, "ROLLBACK")
}
