package sqlitestore

import (
	"errors"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestOldDeskNameStaysReadable: a desk an older version stored under a name
// transcript.ValidateDesk refuses is listed and read as before, and takes no new rows.
func TestOldDeskNameStaysReadable(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "desk.db")
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "kept"})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	const old = "eng team"
	db := openRaw(t, path)
	if _, err := db.ExecContext(ctx, `UPDATE desks SET name = ?1 WHERE name = 'eng'`, old); err != nil {
		t.Fatal(err)
	}
	db.Close()

	st, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if desks, err := st.Desks(ctx); err != nil || !slices.Equal(desks, []string{old}) {
		t.Errorf("Desks = %q, %v; want [%q]", desks, err, old)
	}
	if rows := readDesk(t, st, old); len(rows) != 1 || rows[0].Content != stored.Content {
		t.Errorf("desk %q reads %+v, want the row stored under it", old, rows)
	}
	_, err = st.Append(ctx, old, transcript.Message{Author: transcript.Person("ana", "Ana"), Content: "new"})
	if !errors.Is(err, transcript.ErrInvalidDesk) || !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Errorf("Append to desk %q: %v, want transcript.ErrInvalidDesk and ErrInvalidMessage", old, err)
	}
	if rows := readDesk(t, st, old); len(rows) != 1 {
		t.Errorf("desk %q holds %d rows after the refused Append, want 1", old, len(rows))
	}
}
