package sqlitestore

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// TestBaselinesAgree checks that every baseline of BenchmarkChannel returns exactly the
// channel view transcript.Project returns over the store, on desks below and above
// ScanLimit, so the benchmarks compare equal work.
func TestBaselinesAgree(t *testing.T) {
	for _, rows := range []int{1, 40, 1000, 5000} {
		t.Run(fmt.Sprintf("rows=%d", rows), func(t *testing.T) {
			st, err := Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			if err := st.AppendBatch(t.Context(), benchDeskName, benchMessages(rows)); err != nil {
				t.Fatal(err)
			}
			proj, err := transcript.Project(t.Context(), st.Log(benchDeskName), transcript.Query{})
			if err != nil {
				t.Fatal(err)
			}
			all, err := st.loadAll(t.Context(), benchDeskName)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(proj.Messages, channelInGo(all)); diff != "" {
				t.Errorf("LoadAll differs from Project (-Project +LoadAll):\n%s", diff)
			}
			for name, query := range channelSQL {
				got, err := st.channelBySQL(t.Context(), query, benchDeskName)
				if err != nil {
					t.Fatalf("SQL-%s: %v", name, err)
				}
				if diff := cmp.Diff(proj.Messages, got); diff != "" {
					t.Errorf("SQL-%s differs from Project (-Project +SQL):\n%s", name, diff)
				}
			}
		})
	}
}

// openTempInternal opens a store in a new file that the test removes.
func openTempInternal(t *testing.T) *Store {
	t.Helper()
	st, err := Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
