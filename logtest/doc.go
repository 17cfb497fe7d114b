// Package logtest is the conformance kit for transcript.Log: a host runs it against its own
// store to show that the store keeps the port's contract.
//
// A host wraps one desk of its store as a [Desk] (the Log plus the store's Append) and hands
// the kit a constructor that returns a new, empty desk:
//
//	func TestMyLog(t *testing.T) {
//		logtest.Run(t, func(t *testing.T) logtest.Desk {
//			st, err := mystore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
//			if err != nil {
//				t.Fatal(err)
//			}
//			t.Cleanup(func() { st.Close() })
//			return mystore.DeskOf(st, "eng") // ReadBefore from st.Log("eng"), Append to "eng"
//		})
//	}
//
// [Run] runs every check as a named subtest on a fresh desk, so one check can be rerun with
// go test -run 'TestMyLog/Traversal'. [Test] runs the same checks without a *testing.T and
// returns what they found, one [*CheckError] per failure, joined with errors.Join.
//
// The checks, by name:
//
//   - EmptyLog: a new desk reads as an empty page with Next == 0, whatever the bound.
//   - ExclusiveBound: a read below a row's Seq returns the rows strictly below it.
//   - Limit: a page never holds more rows than asked for (1, a few, transcript.PageSize),
//     and holds at least one while older rows exist.
//   - NextCursor: on every page of a walk Next is 0 exactly when no older row exists, at most
//     the page's oldest Seq, below the bound, and above the next older row (no row skipped).
//   - EndOfLog: the page holding the oldest row has Next == 0; a read below it is empty.
//   - BoundAboveHead: a bound above the newest row, up to the largest Sequence, reads from the
//     newest row.
//   - BoundAtOne: a bound of 1 reads nothing; a bound just above the oldest row reads only it.
//   - Traversal: walking 5,000 rows down returns exactly what Append returned.
//   - SliceOwnership: a reader may keep and modify its pages, audiences included; neither
//     later reads nor the store change because of it.
//   - Cancellation: ReadBefore with a done ctx fails with an error matching ctx.Err().
//   - ConcurrentReads: walks made while another goroutine appends are each exactly the rows
//     at or below their head, and a walk started after an Append returned sees its row.
//   - Projection: transcript.Project over the desk agrees with transcript.Project over
//     memlog holding the same rows, for channel and thread views, several bounds and windows
//     and viewers, on a desk busier than transcript.ScanLimit.
//
// About one root in six the kit appends is an aside, and replies to asides follow
// the reply rule: Append must keep every row's Audience, and return it as
// transcript.Message.ResolveAudience gives it (a reply's filled in from its parent).
//
// Every read goes through a transcript.Pager, so a page that breaks the contract is
// reported as the Pager's *transcript.ContractError, wrapped: errors.Is matches the broken
// rule's sentinel (transcript.ErrDuplicate, ...) and transcript.ErrContract. Other failures
// say what was got and what was wanted. A check reports the first failure of each rule, or
// of each other kind, in full and then how many more it found, so a store that breaks one
// rule on every read yields a short report.
//
// The kit appends about 9,000 rows in all. Run ConcurrentReads under the race detector
// (go test -race) to catch unsafe stores.
package logtest
