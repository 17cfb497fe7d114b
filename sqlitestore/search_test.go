package sqlitestore_test

import (
	"testing"

	"github.com/sharedesk/transcript/internal/storetest"
)

// TestSearchRule: the store's searches are the model's, for every script, viewer, thread,
// bound and limit, and leak nothing of a row the viewer may not read.
func TestSearchRule(t *testing.T) { storetest.SearchRule(t, openTemp(t)) }
