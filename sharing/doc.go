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
// # The protocol
//
// State is returned, never applied: Prepare mutates nothing, and a reinitialization or an
// error exposes no partial delta. A turn goes
//
//  1. plan, err := Prepare(ctx, log, Query{Desired: c, Current: c, State: committed, Before: trigger, Viewer: agent})
//  2. give plan.Delta.Messages and Elided to the agent (or, on plan.Reinitialize, a full projection);
//  3. append the agent's reply to the log durably, and NotePresent its Seq on plan.Delta.Next;
//  4. commit plan.Delta.Next as the new state.
//
// A crash between 3 and 4 leaves the committed state behind, never ahead: the next Prepare
// from it yields the same delta again (at least once, nothing lost), and the agent's own
// reply, not noted in the old state, comes back with it.
package sharing
