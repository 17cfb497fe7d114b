// Package storage is what a store of transcripts is built from, beside the root package
// as database/sql/driver stands beside database/sql: the helpers that sqlitestore,
// pgstore and memlog share, and that a host writing a store of its own needs. A program
// that reads and writes desks uses the root package, github.com/sharedesk/transcript, and a
// store; it never needs this one.
//
// A store's append is decided by the root's transcript.Batch: Batch.Check refuses what the
// messages alone tell is wrong, before the store reads anything; the store then reads what
// Batch.Reads names, under the lock that keeps the desk's head in place, and Batch.Settle
// decides every message against it; the store writes the Settlement. A store refuses what
// only it can tell (a text its database cannot hold, say) with [Invalidf] or
// [InvalidMessage], so that its refusals match transcript.ErrInvalidMessage as the Batch's
// do.
//
// A store's search starts with [PlanSearch], which checks a transcript.SearchQuery and
// gives its terms; [SearchPlan.Matches] is what a match is, and [SearchPlan.Result] cuts
// the matches to the answer, so that every store pages alike. A store that keeps an index
// keeps [IndexTerms] of each row: the words [Terms] finds, as every store finds them, in
// every script.
package storage
