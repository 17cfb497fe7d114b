package transcript

import "context"

// Appender is the write side of a store of many desks (see Store). memlog.Log is one
// desk's, without the desk argument.
//
// Append stores m as the newest row of desk and returns it as stored: its Seq one above the
// desk's newest row (a desk with no row starts at 1; a refused append uses no number), its
// At, when zero, the time of the append, and its Audience as Message.ResolveAudience gives
// it, in a new slice the caller owns. m must satisfy Message.ValidateNew (with the store's
// content limit, at most MaxContent), its Parent must be 0 or an older row of the same
// desk, and the reply rule must hold. A correction (m.Corrects != 0) must satisfy
// Message.ResolveCorrection, and is applied in the same transaction: its target's content
// becomes the edit's or, for a redaction, is erased with that of every earlier correction
// of the target, and its Revised becomes m's Seq. A Key the desk holds already stores
// nothing: Append returns the stored row when storage.MatchKey finds m the same message,
// and fails with an error matching ErrKeyConflict (a *KeyConflictError) otherwise.
// storage.Batch decides it all.
//
// AppendNew is Append, and reports false when m's Key named a stored row that is the same
// message (a replay), which it returns. Of concurrent appends of one key to one desk, from
// any number of goroutines or processes, exactly one reports a new row: a service answers
// it as created, the others as replays.
//
// A refusal stores nothing, is an *AppendError, and matches ErrInvalidMessage and the
// rule's sentinel (ErrInvalidDesk, ErrInvalidAuthor, ErrInvalidAudience, ErrTooLarge,
// ErrText, ErrAt, ErrNoParent, ErrNotReadable, ErrNotAuthor, ErrRedacted); it names rows by
// Seq and never quotes content or an aside's readers. Any other error is the store's own
// failure, matching ctx.Err() when ctx is done. Implementations are safe for concurrent
// use, also by several processes over one database.
type Appender interface {
	Append(ctx context.Context, desk string, m Message) (Message, error)
	AppendNew(ctx context.Context, desk string, m Message) (Message, bool, error)
}

// Store is a store of many desks, each a Log of its own: sqlitestore.Store and
// pgstore.Store are Stores. The packages that use a store (importer, the service, MCP, the
// command) name what they need of one by embedding Store or its parts (Appender,
// DeskLogs). Implementations are safe for concurrent use, also by several
// processes over one database.
type Store interface {
	Appender
	// AppendBatch stores msgs as the newest rows of desk, in order, in one transaction: all
	// of them or, on any error, none. Each message follows Append's rules, except that its
	// Parent (or Corrects) may be BatchParent(j), naming the batch's earlier j-th message; a
	// message whose Key the desk holds is skipped when it is the same message, and fails
	// the batch otherwise. A refusal is an *AppendError naming the message's index. An
	// empty batch stores nothing; msgs are not modified.
	AppendBatch(ctx context.Context, desk string, msgs []Message) error
	// RestoreBatch is AppendBatch for rows an export wrote, which it stores as they were
	// stored (a storage.Batch with Restore): Revised and Redacted kept, a correction of a row
	// restored with it not applied again, one of a row stored before applied as an append
	// applies it.
	RestoreBatch(ctx context.Context, desk string, rows []Message) error
	// LookupKeys returns the rows of desk holding keys, by key, as a read returns them; a
	// key the desk does not hold is absent.
	LookupKeys(ctx context.Context, desk string, keys []string) (map[string]Message, error)
	DeskLogs
	// Desks returns the names of the desks that hold at least one row, sorted.
	Desks(ctx context.Context) ([]string, error)
}

// DeskLogs is the read side of a Store: Log returns desk's Log, which reads as an empty
// log while the desk holds no row. It never fails: a read of the Log reports the store's
// failures.
type DeskLogs interface {
	Log(desk string) Log
}
