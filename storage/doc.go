// Package storage is what a store of transcripts is built from, beside the root package
// as database/sql/driver stands beside database/sql: the write path that sqlitestore,
// pgstore and memlog share, and the helpers a host writing a store of its own needs. A
// program that reads and writes desks uses the root package,
// github.com/sharedesk/transcript, and a store; it never needs this one.
//
// A store's append is decided by a [Batch]: [Batch.Check] refuses what the messages alone
// tell is wrong, before the store reads anything; the store then reads what [Batch.Reads]
// names, under the lock that keeps the desk's head in place, and [Batch.Settle] decides
// every message against it; the store writes the [Settlement]: the new rows, and a
// [Revision] of each stored row the append's corrections change. The rules are the root's
// (transcript.Message.ValidateNew, transcript.Message.ResolveAudience,
// transcript.Message.ResolveCorrection, under the store's transcript.WriteRules), so that a
// host checking a message before it appends applies the very rules the store does; what
// only a store meets is here: a Key the desk holds already ([MatchKey]), a row an export
// wrote ([ValidateRestored]). A store refuses what only it can tell (a text its database
// cannot hold, say) with [Invalidf] or [InvalidMessage], so that its refusals match
// transcript.ErrInvalidMessage as the Batch's do. What a store keeps beside its rows (a
// token's label and times, a digest's text) it checks with [ValidateText] and
// [ValidateTime], the rules of a row's texts and times. A store, or a cache of a desk's
// rows, that holds a row read before a correction committed applies the correction with
// [Revise].
//
// A store's search starts with [PlanSearch], which checks a transcript.SearchQuery and
// gives its terms; [SearchPlan.Matches] is what a match is, and [SearchPlan.Result] cuts
// the matches to the answer, so that every store pages alike. A store that keeps an index
// keeps [IndexTerms] of each row: the words [Terms] finds, as every store finds them, in
// every script.
package storage
