// Package transcript turns one shared multi-party chat transcript into what one participant
// sees.
//
// A desk is a chat channel with threads, written by an operator, people, AI agents and system
// notices. Its host keeps the desk's log and lends it through the [Log] port: one method,
// [Log.ReadBefore], that returns rows newest first below an exclusive bound. [Project] walks
// that log backwards and returns a bounded, thread-aware view for one turn:
//
//   - the channel view holds every root and each root's first reply, so an agent sees
//     answers rather than a run of unanswered questions, but never a thread's interior;
//   - the thread view holds a thread's root and its direct replies.
//
// Every message keeps its [Author] — operator, person, agent or system notice, with the
// label it had when it was written — so one agent never reads another's words as its own.
//
// A view is always one viewer's view ([Query.Viewer]). A row with an [Message.Audience] is
// an aside: only its author, the participants listed and the operator read it
// ([Message.ReadableBy]). For everyone else it counts as blank, and the projection says
// only that something they may not read happened there: an [Elision] names the range, how
// many rows and who may read them, never a word of their content. A reply to an aside stays
// inside it: every log that appends applies [Message.ResolveAudience], which fills a
// reply's audience in from its parent and refuses a reply from someone who may not read the
// parent ([ErrNotReadable]).
//
// The log is append-only, and still a row can change: a correction is a new row that names
// the row it corrects ([Message.Corrects]) — an edit by the row's author, or a redaction by
// its author or the operator, which erases the row's content for good. Every log that
// appends applies [Message.ResolveCorrection] and writes the change to the target in the
// same transaction; a view shows the row as it is now ([Message.Revised],
// [Message.Redacted]), in the place it always had, and never the correction itself.
//
// A view is bounded; a search is not: a Log that implements [Searcher] (memlog and both
// stores of this module do) finds the newest rows holding every word of a text
// ([SearchQuery]) among the rows the viewer may read, and nowhere else, whatever their
// age. Words are what storage.Terms says they are, in every script, so that every Searcher
// finds the same rows; an edited row is found by its new words, an erased one by none.
//
// The walk trusts nothing it reads. Every page is checked against the port's contract (see
// [Pager]); a host that breaks it gets a [*ContractError] naming the read, the bound and
// limit asked for, and the sequence that broke which rule — never a plausible-looking
// history. A host's own failure comes back as a [*ReadError].
//
// Errors say what is wrong and nothing of where, as io/fs's do: [ErrInvalidMessage] is
// "invalid message", and an error of a type such as [*InvalidMessageError] (a message's
// refusal) or [*InvalidError] (an author's, a desk name's, a search's) builds its text from
// its fields. Whoever returns one names the place, once ("append to desk "eng": parent
// 9 is not an older row of the desk"); a caller that words it for its own users reads the
// fields with errors.As.
//
// The walk is bounded: at most [PageSize] rows a read and [ScanLimit] rows a walk, so its
// cost does not grow with the desk. Reaching ScanLimit yields a projection marked Partial,
// not an error.
//
// Subpackages: memlog is an in-memory reference Log; logtest is the conformance kit a host
// runs against its own Log; sharing computes what an agent has not seen between two turns;
// storage is what a store is built from (how every store decides an append, searches and
// indexes), as database/sql/driver stands beside database/sql.
package transcript
