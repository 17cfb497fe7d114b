package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/logtest"
	"github.com/sharedesk/transcript/sharing/books"
	"github.com/sharedesk/transcript/token"
)

// Store is the shape every store of this module shares: many desks, each with
// its own log, and the service's bearer tokens (token.Store). sqlitestore.Store and
// pgstore.Store satisfy it as they are.
type Store interface {
	// transcript.Store appends, restores, looks keys up and reads desks (see Run for the
	// bad input it refuses).
	transcript.Store
	// token.Store keeps tokens by the hashes of their secrets (see TokenRule).
	token.Store
	// books.Store keeps participants' read states per conversation, with
	// compare-and-swap (see BookRule).
	books.Store
}

// Run runs every check of the shared store suite as a subtest of t, each on a new, empty
// store from newStore (Logtest's checks share one, each on a desk of its own), which may
// call t.Fatal and should release the store with t.Cleanup.
// The store must use the default content limit of transcript.MaxContent bytes; a store with a
// configurable limit tests it with ContentLimit.
//
// The subtests, by name:
//
//   - Logtest: logtest.Run over desks of one store (each of its checks on a new desk).
//   - RefusalsEndTheirWrite: after each kind of refusal through Append and AppendBatch (a
//     bad row, content over the limit, a missing parent, a key conflict, a key twice in a
//     batch, the reply rule's refusals), and after a replay that stores nothing, the next
//     append is stored at once (within 5 s): the refused write left no transaction open.
//     When it stops, Run runs no further check: each would hang on its first refusal.
//   - StoredRow: Append returns the stored row, which reads back identically: At stamped
//     when zero, kept to the microsecond otherwise, in UTC; authors, labels, content intact.
//   - DeskIsolation: two desks number their rows from 1 independently, Desks lists both,
//     reads of one never return the other's rows, and an unknown desk reads empty.
//   - BadInput: every kind of bad input (an invalid author, an empty or non-UTF-8 desk
//     name, a parent that is not an older row of the same desk, content over the limit,
//     non-UTF-8 content, author id or label, a NUL byte in any of these texts, a Seq set by
//     the caller, a misplaced BatchParent), through Append and as the only, last or first message of a batch, is an
//     error matching transcript.ErrInvalidMessage, stores nothing anywhere, and the next
//     append gets the next consecutive Seq.
//   - Batch: AppendBatch numbers its rows consecutively and resolves transcript.BatchParent;
//     an empty batch stores nothing; a BatchParent naming the message itself or a later one
//     is rejected.
//   - LargeBatch: a batch of 1,000 rows of every shape (replies by BatchParent and by Seq,
//     asides and their replies, keys, one the desk holds, zero and given times) stores the
//     rows Append stores for the same messages one at a time.
//   - BatchAllOrNothing: a batch whose last message is bad leaves no trace, not even its
//     desk's name in Desks.
//   - ContentLimit: content of exactly transcript.MaxContent bytes is stored, one byte more is
//     rejected.
//   - Asides: the aside rules (see ReplyRule) through Append and AppendBatch:
//     canonical audiences, the reply rule, each refusal with its sentinel and without an
//     aside's content, nothing written by a refusal, and rows that read back as stored.
//   - Keys: the key rules (see KeyRule) through Append and AppendBatch: replays
//     return the stored row, conflicts are *transcript.KeyConflictError and write nothing,
//     one key appended concurrently is stored once, a batch skips its present rows and
//     appends the rest, and a batch with a conflict or a repeated key writes nothing.
//   - Corrections: the correction rule (see CorrectionRule) through Append and AppendBatch:
//     edits applied to their targets (new content, Revised), redactions erasing the target
//     and every earlier correction of it, the operator's redaction of an aside it is not
//     in, a keyed edit replayed after a redaction, every refusal with its sentinel, quoting
//     no aside and writing nothing (an outsider's refused as for a missing row, word for
//     word); corrections inside one batch; and RestoreBatch reproducing a desk with
//     corrections exactly, and refusing a Revised not above its row.
//   - Search: the search rules (see SearchRule) on random desks in many scripts, with
//     asides, blank rows, replies and corrections: every answer the brute-force model's
//     for every viewer, scope, bound and limit; paging through Next to the end; no word of
//     a row the viewer may not read, or of erased content, in any answer; and an
//     outsider's answers, and the work of its searches, those of the same desk without
//     its asides, in the whole desk and within threads whose replies are mostly asides.
//     The store's logs must implement transcript.Searcher and
//     SearchWorkCounter.
//   - Tokens: the token.Store contract (see TokenRule): tokens stored exactly and found by
//     hash only, listed in order, refused twice or invalid, revoked once, and
//     token.Authenticate over the store accepting each token as itself and refusing
//     revoked, unknown, malformed and missing ones without quoting a secret.
//   - Books: the books.Store contract (see BookRule): books stored exactly, versions
//     one up a save, compare-and-swap refusing every other version, identity by desk and
//     the participant's Kind and ID, bad desks and participants refused, and
//     books.Update from 8 goroutines losing no acknowledgement.
//   - ConcurrentSharing: 8 writers append to 4 desks while readers run sharing.Prepare →
//     commit loops for channel and thread agents on those desks; each reader ends up having
//     accepted every qualifying row exactly once. Run it with -race.
//   - Digests: the digest.Store contract (see DigestRule) on desks of the store, whose
//     logs must implement digest.Store: reads below a bound, generations, a correction
//     after a fold's read, the digests a correction deletes, one generation stored of
//     several at once, and the erasure property.
func Run(t *testing.T, newStore func(t *testing.T) Store) {
	t.Helper()
	t.Run("Logtest", func(t *testing.T) {
		st := newStore(t)
		if st == nil {
			t.Fatal("storetest: newStore returned a nil Store")
		}
		n := 0
		logtest.Run(t, func(t *testing.T) logtest.Desk {
			n++ // the kit's checks run one after another, each on a new, empty desk
			return DeskOf(st, fmt.Sprintf("logtest-%d", n))
		})
	})
	check := func(name string, run func(t *testing.T, st Store)) {
		t.Run(name, func(t *testing.T) {
			st := newStore(t)
			if st == nil {
				t.Fatal("storetest: newStore returned a nil Store")
			}
			run(t, st)
		})
	}
	// Run stops when an append after a refusal was not stored at once (the check began and
	// did not finish): every check after it would hang on its first refusal.
	began, finished := false, false
	check("RefusalsEndTheirWrite", func(t *testing.T, st Store) {
		began = true
		checkRefusalsEndTheirWrite(t, st)
		finished = true
	})
	if began && !finished {
		t.Fatal("storetest: RefusalsEndTheirWrite stopped, so no other check runs: a store whose refused writes hold their transaction open would hang them")
	}
	for _, c := range checks {
		check(c.name, c.run)
	}
}

// checks is every check of Run after Logtest and RefusalsEndTheirWrite, in order.
var checks = []struct {
	name string
	run  func(t *testing.T, st Store)
}{
	{"StoredRow", checkStoredRow},
	{"DeskIsolation", checkDeskIsolation},
	{"BadInput", checkBadInput},
	{"Batch", checkBatch},
	{"BatchAllOrNothing", checkBatchAllOrNothing},
	{"LargeBatch", checkLargeBatch},
	{"ContentLimit", func(t *testing.T, st Store) { ContentLimit(t, st, transcript.MaxContent) }},
	{"Asides", checkAsides},
	{"Keys", checkKeys},
	{"Corrections", checkCorrections},
	{"Search", func(t *testing.T, st Store) { checkSearchWork(t, st); SearchRule(t, st) }},
	{"Tokens", func(t *testing.T, st Store) { TokenRule(t, st) }},
	{"Books", func(t *testing.T, st Store) { BookRule(t, st) }},
	{"ConcurrentSharing", checkConcurrentSharing},
	{"Digests", checkDigests},
}

// Desk is one desk of a Store as logtest drives it.
type Desk struct {
	transcript.Log
	Store Store
	Name  string
}

var _ logtest.Desk = Desk{}

// DeskOf returns desk of st as a logtest.Desk: reads from st.Log(desk), appends to desk.
func DeskOf(st Store, desk string) Desk {
	return Desk{Log: st.Log(desk), Store: st, Name: desk}
}

// Append appends m to the desk.
func (d Desk) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	return d.Store.Append(ctx, d.Name, m)
}
