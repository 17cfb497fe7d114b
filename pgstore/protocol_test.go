package pgstore_test

import (
	"testing"

	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/logtest"
	"github.com/sharedesk/transcript/pgstore"
)

// TestSimpleProtocol runs the conformance kit on a store whose pool uses PostgreSQL's simple
// query protocol (as behind a transaction-pooling proxy), where every column arrives as text
// and ReadBefore decodes rows with Scan instead of its binary decoder.
func TestSimpleProtocol(t *testing.T) {
	t.Parallel()
	dsn := withParam(newDatabase(t), "default_query_exec_mode", "simple_protocol")
	st, err := pgstore.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	n := 0
	logtest.Run(t, func(t *testing.T) logtest.Desk {
		n++
		name := "simple-" + string(rune('a'+n))
		return storetest.DeskOf(st, name)
	})
}
