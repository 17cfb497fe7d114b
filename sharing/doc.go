// Package sharing gives an agent, between two of its turns, exactly the messages of its
// conversation that it has not seen yet.
//
// The caller owns the agent's [State]: the conversation it is bound to, a watermark, and a
// small set of rows above the watermark it has already accepted (its own replies, say).
// [Prepare] reads the desk's log down from the turn's bound to the watermark and returns a
// [Plan]: either a [Delta] — the new qualifying messages and the state to commit after the
// turn — or a named [Reason] to reinitialize from a full projection instead.
//
// # Deltas agree with projections
//
// For any log, watermark M, present set S and bound B, a delta holds exactly the rows of
// (M, B) that qualify for the conversation under transcript.Project's definitions over the
// same scan P (the first ScanLimit rows below B), minus S, in chronological order. At channel
// level that includes the first reply to a root older than M: Prepare reads on below M,
// inside the same ScanLimit, to learn whether that root has an older reply. A projection and
// the deltas after it therefore never disagree about what the agent should see.
//
// Deltas are for one viewer ([Query.Viewer]), as projections are: a row the viewer may not
// read (an aside it is not a party to) counts as blank, and the delta's Elided stands for
// the rows of (M, B) a projection would elide. Projection, then deltas, give every viewer
// exactly the messages one projection would, and their elisions' counts add up.
//
// Rows are edited and redacted after an agent was shown them. A delta's Corrections holds
// the newest correction in (M, B) of each row of the conversation the agent may hold; the
// agent applies each to the row it holds, when newer than the row's Revised, as
// [Delta.Corrections] says, so that what it holds stays what one projection shows.
//
// A digest is not a row the agent can correct: a delta carries none, and the words a
// digest folded stay in the copy the agent was given. A state started from a projection
// with its digest records it ([State.WithDigest]), and once a row of (M, B) edits or
// redacts a row that digest may stand for, however old, Prepare answers [DigestCorrected]:
// a fresh projection gives the digest as the store holds it then, or none.
//
// # The protocol
//
// State is returned, never applied: Prepare mutates nothing, and a reinitialization or an
// error exposes no partial delta. A turn goes
//
//  1. plan, err := Prepare(ctx, log, Query{Desired: c, Current: c, State: committed, Before: trigger, Viewer: agent})
//  2. give plan.Delta.Messages and Elided to the agent, and apply its Corrections to what the
//     agent holds (or, on plan.Reinitialize, give it a full projection);
//  3. append the agent's reply to the log durably, and NotePresent its Seq on plan.Delta.Next;
//  4. commit plan.Delta.Next as the new state.
//
// A crash between 3 and 4 leaves the committed state behind, never ahead: the next Prepare
// from it yields the same delta again (at least once, nothing lost), and the agent's own
// reply, not noted in the old state, comes back with it.
//
// A state belongs to one viewer: a delta's Next names its query's viewer ([State.Viewer]),
// and a state that names another viewer is ConversationChanged, without a read, since what
// one participant accepted is not what another has seen.
//
// # Books: a state per conversation
//
// A participant that works in several conversations of a desk — the channel and a few
// threads — keeps a [Book]: a State per conversation, for at most [BookLimit] of them, the
// least recently used evicted beyond that. [Book.Lookup] gives the state to prepare from,
// or none and why: a first read (0) or [StateEvicted]; then the participant starts afresh
// from a full projection, and [Book.Put] records Initialized at its Head. A delta's Next is
// committed with [Book.Acknowledge], which joins it into the stored state: the higher
// watermark, and the present entries of both above it.
//
// Books are values; nothing here does I/O. Package books (sharing/books) keeps them in a
// store, per desk and participant, and updates them by compare-and-swap.
package sharing
