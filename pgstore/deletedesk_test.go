package pgstore_test

import (
	"testing"

	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

var _ storetest.DeskDeleter = (*pgstore.Store)(nil)

// deskTables says, for every table of the store's schema, how to count the rows it keeps
// of desk $1, or "" for a table that keeps nothing of any one desk. A table missing here
// fails TestDeleteDeskRule: a new table must say what it keeps of a desk.
var deskTables = map[string]string{
	"transcript_schema_version": "",
	"transcript_desks":          `SELECT count(*) FROM transcript_desks WHERE name = $1`,
	"transcript_messages":       `SELECT count(*) FROM transcript_messages WHERE desk = $1`,
	"transcript_tokens":         `SELECT count(*) FROM transcript_tokens WHERE desk = $1`,
	"transcript_books":          `SELECT count(*) FROM transcript_books WHERE desk = $1`,
	"transcript_terms":          `SELECT count(*) FROM transcript_terms WHERE desk = $1`,
	"transcript_term_readers":   `SELECT count(*) FROM transcript_term_readers WHERE desk = $1`,
	"transcript_terms_version":  "",
	"transcript_search_key":     "",
	"transcript_digests":        `SELECT count(*) FROM transcript_digests WHERE desk = $1`,
}

// TestDeleteDeskRule runs storetest.DeleteDeskRule, then deletes the desk it made anew and
// checks that no table of the schema keeps a row of it (every table accounted for in
// deskTables), while the kept desk keeps its rows in each.
func TestDeleteDeskRule(t *testing.T) {
	t.Parallel()
	st, dsn := openStore(t)
	storetest.DeleteDeskRule(t, st)
	if _, err := st.DeleteDesk(t.Context(), "gone", true); err != nil {
		t.Fatal(err)
	}
	pool := connect(t, dsn)
	rows, err := pool.Query(t.Context(), `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name LIKE 'transcript%'`)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
	}
	rows.Close()
	if len(names) < len(deskTables) {
		t.Errorf("the schema has %d tables %q, fewer than deskTables names", len(names), names)
	}
	for _, name := range names {
		count, ok := deskTables[name]
		if !ok {
			t.Errorf("table %s is not in deskTables: say what it keeps of a desk, and have DeleteDesk delete it", name)
			continue
		}
		if count == "" {
			continue
		}
		var gone, kept int
		if err := pool.QueryRow(t.Context(), count, "gone").Scan(&gone); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := pool.QueryRow(t.Context(), count, "kept").Scan(&kept); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if gone != 0 || kept == 0 {
			t.Errorf("after DeleteDesk, table %s holds %d rows of the deleted desk and %d of the kept one; want none and some", name, gone, kept)
		}
	}
}
