// Package books keeps participants' books (sharing.Book) in a store, one per participant
// and desk, with a version every save moves, so that two sessions of one participant (two
// MCP connections of one agent, say) cannot lose each other's acknowledgements.
//
// [Store] is what keeps them: sqlitestore.Store and pgstore.Store are Stores, each a table
// beside the desks, and [Memory] keeps them in memory for a host whose store keeps none.
// A save succeeds only over the version its caller loaded; [Update] is the one place that
// loads, applies a change and saves, applying the change again to the book as stored when
// another session saved in between. Since sharing.Book.Acknowledge's join is commutative
// and idempotent, two sessions acknowledging reads of the same or different conversations
// end with everything both accepted, in whichever order they land.
//
// The protocol of a turn is sharing's: commit (Update with Acknowledge) only after the turn
// is over, and a crash before that delivers the read again.
//
//	book, _, err := st.LoadBook(ctx, desk, agent)
//	state, why, ok := book.Lookup(c) // !ok: project, then pending = sharing.Initialized(c, proj.Head), report why
//	plan, err := sharing.Prepare(ctx, log, sharing.Query{Desired: c, Current: c, State: state, Viewer: agent})
//	// ... the turn ends (the agent posts in c, or reads c again) ...
//	_, err = books.Update(ctx, st, desk, agent, func(b sharing.Book) (sharing.Book, error) { return b.Acknowledge(plan.Delta.Next) })
package books
