package pgstore_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestSearchKeysAreKeyed: every database makes a secret of its own for the search index's
// keys, and a row's keys are those of that secret: nobody without the database computes
// them, so nobody can choose words or audiences whose keys collide with another desk's or
// reader set's. Reopening keeps the secret.
func TestSearchKeysAreKeyed(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	var secrets [][]byte
	for range 2 {
		st, dsn := openStore(t)
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Agent("ana", ""), Content: "zanzibar"}); err != nil {
			t.Fatal(err)
		}
		pool := connect(t, dsn)
		key, err := pgstore.SearchKeyOf(ctx, pool)
		if err != nil || len(key) != 32 || bytes.Equal(key, make([]byte, 32)) {
			t.Fatalf("the search key: %x, %v; want 32 random bytes", key, err)
		}
		var stored []int64
		if err := pool.QueryRow(ctx, `SELECT keys FROM transcript_terms WHERE desk = 'eng' AND seq = 1`).Scan(&stored); err != nil {
			t.Fatal(err)
		}
		if want := pgstore.TermKeys(key, "eng", []string{"zanzibar"}); !slices.Equal(stored, want) {
			t.Fatalf("row 1's keys are %v, want %v, the keys of the database's secret", stored, want)
		}
		st.Close()
		again, err := pgstore.Open(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		if kept, err := pgstore.SearchKeyOf(ctx, pool); err != nil || !bytes.Equal(kept, key) {
			t.Fatalf("after reopening, the key is %x (%v), want %x", kept, err, key)
		}
		again.Close()
		secrets = append(secrets, key)
	}
	if bytes.Equal(secrets[0], secrets[1]) {
		t.Fatal("two databases made the same search key")
	}
}
