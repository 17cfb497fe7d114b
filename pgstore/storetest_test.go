package pgstore_test

import (
	"testing"

	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/pgstore"
)

var _ storetest.Store = (*pgstore.Store)(nil)

// TestStore runs the suite every store of the module shares, each check on a new database.
func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) storetest.Store {
		st, _ := openStore(t)
		return st
	})
}

func TestLargePages(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	storetest.LargePages(t, st)
}

func TestWithMaxContent(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{2, 100, 4096} {
		st, _ := openStore(t, pgstore.WithMaxContent(limit))
		storetest.ContentLimit(t, st, limit)
	}
}
