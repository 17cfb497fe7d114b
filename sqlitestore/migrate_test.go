package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// openRaw opens the file at path with the writer's settings, without migrating it.
func openRaw(t testing.TB, path string) *sql.DB { return openRawWith(t, driverName, path) }

// openRawWith is openRaw through the database/sql driver named driver.
func openRawWith(t testing.TB, driver, path string) *sql.DB {
	t.Helper()
	d, err := dsn(path, defaultConfig(), true)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open(driver, d)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

func schemaVersion(t *testing.T, path string) int {
	t.Helper()
	db := openRaw(t, path)
	defer db.Close()
	var v int
	if err := db.QueryRow(`SELECT version FROM schema_version`).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestMigrateFromV1 writes rows with the version 1 schema, as a release of this package that
// knew only version 1 would have, then opens the file: Open migrates it to SchemaVersion and
// every row reads back intact, times to the microsecond (floored, also before 1970).
func TestMigrateFromV1(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "v1.db")
	db := openRaw(t, path)
	if found, err := migrate(ctx, db, 1); err != nil || found != 0 {
		t.Fatalf("migrate to version 1: found %d, %v", found, err)
	}
	type v1Row struct {
		desk                 string
		seq, parent          int64
		kind, id, label, txt string
		atNS                 int64
	}
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC).UnixNano()
	v1 := []v1Row{
		{"eng", 1, 0, "operator", "", "", "deploy at noon?", base + 123_456_789},
		{"eng", 2, 1, "agent", "triage", "Triage", "yes, after the migration", base + 2_000_000_999},
		{"eng", 3, 0, "system", "workflow", "Nightly build", "build 812 passed", base + 3_000_000_000},
		{"eng", 4, 2, "person", "ana", "Ana Lima ✍", "  ", base + 4_000_000_001},
		{"sales", 1, 0, "person", "raj", "", "Q3 numbers attached", -1_500},             // before 1970: floors to -2µs
		{"sales", 2, 1, "agent", "coder", "Coder", "naïve café 🚀", -86_400_000_000_999}, // 1969-12-31
	}
	for _, r := range v1 {
		if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author_kind, author_id, author_label, content, at_ns)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, r.desk, r.seq, r.parent, r.kind, r.id, r.label, r.txt, r.atNS); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	if v := schemaVersion(t, path); v != 1 {
		t.Fatalf("schema version %d before Open, want 1", v)
	}

	st, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open of a version 1 database: %v", err)
	}
	defer st.Close()
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	kinds := map[string]transcript.AuthorKind{"operator": transcript.KindOperator, "person": transcript.KindPerson, "agent": transcript.KindAgent, "system": transcript.KindSystem}
	want := make(map[string][]transcript.Message)
	for _, r := range v1 {
		at := time.Unix(0, r.atNS).UTC()
		floor := at.Truncate(time.Microsecond) // Truncate rounds toward the zero Time, which is a floor here
		want[r.desk] = append(want[r.desk], transcript.Message{
			Seq: transcript.Sequence(r.seq), Parent: transcript.Sequence(r.parent),
			Author:  transcript.Author{Kind: kinds[r.kind], ID: r.id, Label: r.label},
			Content: r.txt, At: floor,
		})
	}
	desks, err := st.Desks(ctx)
	if err != nil || !slices.Equal(desks, []string{"eng", "sales"}) {
		t.Errorf("Desks after the migration = %q, %v; want [eng sales]", desks, err)
	}
	for desk, rows := range want {
		page, err := st.Log(desk).ReadBefore(ctx, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Clone(page.Messages)
		slices.Reverse(got)
		if diff := cmp.Diff(rows, got); diff != "" {
			t.Errorf("desk %q after the migration (-want +got):\n%s", desk, diff)
		}
	}
	// The migrated desks take new rows after their old ones, and thread lookups use the index.
	m, err := st.Append(ctx, "eng", transcript.Message{Parent: 3, Author: transcript.Operator(), Content: "after"})
	if err != nil || m.Seq != 5 {
		t.Errorf("Append after the migration: seq %d, %v; want 5", m.Seq, err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Parent: 9, Author: transcript.Operator(), Content: "x"}); !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Errorf("Append with a missing parent after the migration: %v, want ErrInvalidMessage", err)
	}
}

// TestOpenNewerSchema: a file whose schema is newer than this package's is refused and left
// as it was.
func TestOpenNewerSchema(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "new.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	db := openRaw(t, path)
	if _, err := db.Exec(`UPDATE schema_version SET version = ?`, SchemaVersion+1); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = Open(ctx, path)
	var schemaErr *SchemaError
	if !errors.As(err, &schemaErr) || !errors.Is(err, ErrSchemaTooNew) || schemaErr.Found != SchemaVersion+1 || schemaErr.Known != SchemaVersion {
		t.Fatalf("Open of a version %d database: %v, want a *SchemaError{Found: %d, Known: %d}", SchemaVersion+1, err, SchemaVersion+1, SchemaVersion)
	}
	if v := schemaVersion(t, path); v != SchemaVersion+1 {
		t.Errorf("schema version %d after the refused Open, want %d", v, SchemaVersion+1)
	}
}

// TestConcurrentOpen: stores opened at once on one new file migrate it once, and all work.
func TestConcurrentOpen(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "race.db")
	const n = 6
	stores := make([]*Store, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { stores[i], errs[i] = Open(ctx, path) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	for i, st := range stores {
		if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: fmt.Sprint(i)}); err != nil {
			t.Fatalf("Append through store %d: %v", i, err)
		}
	}
	page, err := stores[0].Log("eng").ReadBefore(ctx, 0, 2*n)
	if err != nil || len(page.Messages) != n || page.Messages[0].Seq != n {
		t.Errorf("after %d appends through %d stores: %d rows, head %v, %v", n, n, len(page.Messages), page.Messages, err)
	}
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d, want %d", v, SchemaVersion)
	}
}

// schemaObjects returns every table, index and trigger of db, each as its type, name and
// SQL, in the order of their names.
func schemaObjects(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.QueryContext(t.Context(), `SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_schema ORDER BY name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMigrationsNumbered: the embedded migrations are versions 1 to SchemaVersion, and
// migrating an empty file one version at a time ends where migrating at once does.
func TestMigrationsNumbered(t *testing.T) {
	ctx := context.Background()
	if len(migrations) != SchemaVersion {
		t.Fatalf("%d migrations, SchemaVersion %d", len(migrations), SchemaVersion)
	}
	stepwise := openRaw(t, filepath.Join(t.TempDir(), "stepwise.db"))
	defer stepwise.Close()
	for v := 1; v <= SchemaVersion; v++ {
		if found, err := migrate(ctx, stepwise, v); err != nil || found != v-1 {
			t.Fatalf("migrate to %d: found %d, %v", v, found, err)
		}
	}
	direct := openRaw(t, filepath.Join(t.TempDir(), "direct.db"))
	defer direct.Close()
	if _, err := migrate(ctx, direct, SchemaVersion); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(schemaObjects(t, direct), schemaObjects(t, stepwise)); diff != "" {
		t.Errorf("schemas differ (-direct +stepwise):\n%s", diff)
	}
}

// writeOldDesk writes desk eng into db, at a schema version from 5 (keys) up: its desks,
// authors and audiences rows, and three messages from at on (a keyed root, an aside
// replying to it, and a reply into the aside), which it returns as a read returns them.
func writeOldDesk(t *testing.T, db *sql.DB, at time.Time) []transcript.Message {
	t.Helper()
	ctx := t.Context()
	want := []transcript.Message{
		{Seq: 1, Author: opAuthor, Content: "deploy at noon?", At: at, Key: "slack:1.000001"},
		{Seq: 2, Parent: 1, Author: opAuthor, Content: "between us", At: at.Add(time.Second), Audience: []transcript.Author{triageAgent}},
		{Seq: 3, Parent: 2, Author: triageAgent, Content: "agreed", At: at.Add(2 * time.Second), Audience: []transcript.Author{opAuthor}},
	}
	for _, stmt := range []string{
		`INSERT INTO desks (id, name) VALUES (1, 'eng')`,
		`INSERT INTO authors (id, kind, ident, label) VALUES (1, 1, '', ''), (2, 3, 'triage', 'Triage')`,
		`INSERT INTO audiences (id, members) VALUES (1, '[{"kind":3,"ident":"triage","label":"Triage"}]'), (2, '[{"kind":1,"ident":"","label":""}]')`,
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range want {
		author, audience, key := []int{1, 1, 2}[i], []any{nil, 1, 2}[i], []any{m.Key, nil, nil}[i]
		if _, err := db.ExecContext(ctx, `INSERT INTO messages (desk, seq, parent, author, audience, content, at_us, key) VALUES (1, ?, ?, ?, ?, ?, ?, ?)`,
			int64(m.Seq), int64(m.Parent), author, audience, m.Content, m.At.UnixMicro(), key); err != nil {
			t.Fatal(err)
		}
	}
	return want
}

// openMigrated opens the database at path, written at schema version from, whose tables
// dumped before (dumpTables) and whose desk eng holds want, and checks that Open migrated
// it to SchemaVersion, changed no row, and reads eng back as want. The test closes it.
func openMigrated(t *testing.T, path string, from int, before map[string][]string, want []transcript.Message) *Store {
	t.Helper()
	st, err := Open(t.Context(), path)
	if err != nil {
		t.Fatalf("Open of a version %d database: %v", from, err)
	}
	t.Cleanup(func() { st.Close() })
	if v := schemaVersion(t, path); v != SchemaVersion {
		t.Errorf("schema version %d after Open, want %d", v, SchemaVersion)
	}
	if diff := cmp.Diff(before, dumpTables(t, st.writer)); diff != "" {
		t.Errorf("the migration changed rows (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(want, readDesk(t, st, "eng")); diff != "" {
		t.Errorf("desk eng after the migration (-want +got):\n%s", diff)
	}
	return st
}
