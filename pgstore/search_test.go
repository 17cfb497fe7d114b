package pgstore_test

import (
	"testing"

	"github.com/sharedesk/transcript/internal/storetest"
)

// TestSearchRule: the store's searches equal the brute-force model on random desks of
// several scripts, with asides, blank rows, replies, edits and redactions, for every
// viewer, scope, bound and limit, paging through Next, and leak nothing.
func TestSearchRule(t *testing.T) {
	t.Parallel()
	st, _ := openStore(t)
	storetest.SearchRule(t, st)
}
