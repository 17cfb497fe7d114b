package sqlitestore

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// readDesk returns every row of desk, oldest first, through the store's Log.
func readDesk(t *testing.T, st *Store, desk string) []transcript.Message {
	t.Helper()
	page, err := st.Log(desk).ReadBefore(t.Context(), 0, transcript.PageSize)
	if err != nil {
		t.Fatalf("ReadBefore on desk %q: %v", desk, err)
	}
	rows := slices.Clone(page.Messages)
	slices.Reverse(rows)
	return rows
}

// authorRows returns the number of rows of the file's authors table.
func authorRows(t *testing.T, st *Store) int {
	t.Helper()
	var n int
	if err := st.readers.QueryRowContext(t.Context(), `SELECT count(*) FROM authors`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMigrateFromV2 writes rows with the version 2 schema, where every row holds its
// author's kind, id and label, then opens the file: Open migrates it, every row reads back
// intact, each distinct author is one authors row, and new appends reuse those rows.
func TestMigrateFromV2(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v2.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 2); err != nil || found != 0 {
		t.Fatalf("migrate to version 2: found %d, %v", found, err)
	}
	at := time.Date(2026, 3, 1, 9, 0, 0, 123_000, time.UTC)
	triage := transcript.Agent("triage", "Triage")
	want := map[string][]transcript.Message{
		"eng": {
			{Seq: 1, Author: transcript.Operator(), Content: "deploy at noon?", At: at},
			{Seq: 2, Parent: 1, Author: triage, Content: "yes", At: at.Add(time.Second)},
			{Seq: 3, Parent: 1, Author: transcript.Agent("triage", "Triage v2"), Content: "renamed", At: at.Add(2 * time.Second)},
			{Seq: 4, Author: transcript.System("workflow", "Nightly"), Content: "  ", At: at.Add(3 * time.Second)},
		},
		"sales": {
			{Seq: 1, Author: triage, Content: "Q3 numbers?", At: at},
			{Seq: 2, Parent: 1, Author: transcript.Person("ana", "Ana Lima ✍"), Content: "naïve café 🚀", At: at.Add(-time.Hour)},
		},
	}
	for i, desk := range []string{"eng", "sales"} {
		if _, err := db.ExecContext(ctx, `INSERT INTO desks (id, name) VALUES (?, ?)`, i+1, desk); err != nil {
			t.Fatal(err)
		}
		for _, m := range want[desk] {
			if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author_kind, author_id, author_label, content, at_us)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, i+1, int64(m.Seq), int64(m.Parent), int64(m.Author.Kind), m.Author.ID, m.Author.Label, m.Content, m.At.UnixMicro()); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.Close()

	st, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of a version 2 database: %v", err)
	}
	defer st.Close()
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	for desk, rows := range want {
		if diff := cmp.Diff(rows, readDesk(t, st, desk)); diff != "" {
			t.Errorf("desk %q after the migration (-want +got):\n%s", desk, diff)
		}
	}
	if n := authorRows(t, st); n != 5 {
		t.Errorf("%d authors rows after the migration, want 5: one for each distinct kind, id and label", n)
	}
	if _, err := st.Append(ctx, "sales", transcript.Message{Parent: 1, Author: triage, Content: "again"}); err != nil {
		t.Fatal(err)
	}
	if n := authorRows(t, st); n != 5 {
		t.Errorf("%d authors rows after an append by a known author, want 5", n)
	}
	if _, err := st.Append(ctx, "sales", transcript.Message{Author: transcript.Agent("triage", "Triage v3"), Content: "relabelled"}); err != nil {
		t.Fatal(err)
	}
	if n := authorRows(t, st); n != 6 {
		t.Errorf("%d authors rows after an append with a new label, want 6", n)
	}
}

// TestAuthorsAcrossStores: a Store reads and reuses the authors another Store on the same
// file created, although its cache has never seen them, also with a single reader
// connection.
func TestAuthorsAcrossStores(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "shared.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, path, WithReaders(1)) // resolving authors must not wait for the page's own reader
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	coder := transcript.Agent("coder", "Coder")
	first, err := a.Append(ctx, "eng", transcript.Message{Author: coder, Content: "patch ready"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readDesk(t, b, "eng"); !cmp.Equal(got, []transcript.Message{first}) {
		t.Errorf("the other store reads %+v, want %+v", got, first)
	}
	if _, err := b.Append(ctx, "eng", transcript.Message{Parent: 1, Author: coder, Content: "and tested"}); err != nil {
		t.Fatal(err)
	}
	if n := authorRows(t, a); n != 1 {
		t.Errorf("%d authors rows after two stores appended as one author, want 1", n)
	}
}

// TestAuthorOfFailedBatch: a batch refused after it created an author's row leaves neither
// the row nor a cache entry for it, and the author's next append stores and reads it back.
func TestAuthorOfFailedBatch(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "first"}); err != nil {
		t.Fatal(err)
	}
	scribe := transcript.Agent("scribe", "Scribe")
	err := st.AppendBatch(ctx, "eng", []transcript.Message{
		{Author: scribe, Content: "notes"},
		{Parent: 99, Author: transcript.Operator(), Content: "reply to nothing"}, // refused inside the transaction
	})
	if !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Fatalf("AppendBatch with a missing parent: %v, want ErrInvalidMessage", err)
	}
	if _, ok := st.authors.id(scribe); ok {
		t.Error("the author of the refused batch is in the cache")
	}
	if n := authorRows(t, st); n != 1 {
		t.Errorf("%d authors rows after the refused batch, want 1", n)
	}
	m, err := st.Append(ctx, "eng", transcript.Message{Author: scribe, Content: "notes"})
	if err != nil {
		t.Fatal(err)
	}
	if got := readDesk(t, st, "eng"); len(got) != 2 || !cmp.Equal(got[1], m) {
		t.Errorf("desk reads %+v, want its second row %+v", got, m)
	}
}

// TestAuthorCacheLimit: past the cache's limit, authors are still written and read right,
// and the cache never holds more than its limit.
func TestAuthorCacheLimit(t *testing.T) {
	ctx := t.Context()
	st := openTempInternal(t)
	st.authors.limit = 2
	var msgs []transcript.Message
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		msgs = append(msgs, transcript.Message{Author: transcript.Person(id, strings.ToUpper(id)), Content: "hi from " + id})
	}
	if err := st.AppendBatch(ctx, "eng", msgs); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Append(ctx, "eng", msgs[4]); err != nil { // an author the cache cannot hold
		t.Fatal(err)
	}
	for range 2 { // the first read fills the cache as far as it goes, the second uses it
		got := readDesk(t, st, "eng")
		if len(got) != 6 {
			t.Fatalf("%d rows, want 6", len(got))
		}
		for i, m := range got {
			if want := msgs[min(i, 4)].Author; m.Author != want {
				t.Errorf("row %d: author %+v, want %+v", m.Seq, m.Author, want)
			}
		}
	}
	if n, m := len(st.authors.byID), len(st.authors.byKey); n == 0 || n > 2 || m != n {
		t.Errorf("the cache holds %d authors by id and %d by key, want as many, 1 or 2 (its limit)", n, m)
	}
	if n := authorRows(t, st); n != 5 {
		t.Errorf("%d authors rows, want 5", n)
	}
}

// TestMissingAuthorRow: a row naming an author the file does not hold (a file changed
// outside this package) is a read error naming the row and the author, not a row with a
// made-up author.
func TestMissingAuthorRow(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "broken.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "fine"}); err != nil {
		t.Fatal(err)
	}
	db := openRaw(t, path)
	if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, content, at_us) VALUES (1, 2, 0, 999, 'orphan', 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = st.Log("eng").ReadBefore(ctx, 0, 10)
	if err == nil || !strings.Contains(err.Error(), "row 2 names author 999") {
		t.Fatalf("ReadBefore over a row naming a missing author: %v, want an error naming row 2 and author 999", err)
	}
	_, err = transcript.Project(ctx, st.Log("eng"), transcript.Query{})
	if _, ok := errors.AsType[*transcript.ReadError](err); !ok {
		t.Errorf("Project over that row: %v, want a *transcript.ReadError", err)
	}
	if page, err := st.Log("eng").ReadBefore(ctx, 2, 10); err != nil || len(page.Messages) != 1 {
		t.Errorf("ReadBefore below that row: %+v, %v; want the good row", page, err)
	}
}
