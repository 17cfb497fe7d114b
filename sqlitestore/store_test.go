package sqlitestore_test

import (
	"path/filepath"
	"testing"

	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sqlitestore"
)

var _ storetest.Store = (*sqlitestore.Store)(nil)

// openTemp opens a store in a new file that the test removes.
func openTemp(t *testing.T, opts ...sqlitestore.Option) *sqlitestore.Store {
	t.Helper()
	st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Store { return openTemp(t) })
}

func TestLargePages(t *testing.T) { storetest.LargePages(t, openTemp(t)) }

func TestWithMaxContent(t *testing.T) {
	for _, limit := range []int{2, 100, 4096} {
		storetest.ContentLimit(t, openTemp(t, sqlitestore.WithMaxContent(limit)), limit)
	}
}
