// Package storage is what a store of transcripts is built from: the helpers that
// sqlitestore, pgstore and memlog share, and that a host writing a store of its own needs,
// as database/sql/driver stands beside database/sql. A program that reads and writes
// desks uses the root package, github.com/sharedesk/transcript, and a store; it never
// needs this one.
//
// A store's search starts with [PlanSearch], which checks a [transcript.SearchQuery] and
// gives its terms; [SearchPlan.Matches] is what a match is, and [SearchPlan.Result] cuts
// the matches to the answer, so that every store pages alike. A store that keeps an index
// keeps [IndexTerms] of each row: the words [Terms] finds, as every store finds them, in
// every script.
package storage
