// Package storetest is the test suite every store of this module runs: sqlitestore and
// pgstore call Run from their tests with a constructor for a new, empty store, so both are
// held to the same rules: logtest conformance per desk, desk isolation, bad input
// refused with transcript.ErrInvalidMessage and stored nowhere, all-or-nothing batches with
// transcript.BatchParent, the content limit, asides, keys, corrections (and restoring an
// export's rows), bearer tokens (token.Store, which every store implements), read-state
// books (books.Store, likewise), digests (digest.Store, which every store's logs
// implement), and agents sharing desks while writers append.
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) storetest.Store {
//			st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { st.Close() })
//			return st
//		})
//	}
//
// Each check is a named subtest (go test -run 'TestStore/BadInput'). A store with a
// configurable content limit also calls ContentLimit on a store opened with another limit.
package storetest
