// Package pgstore is a transcript store in PostgreSQL, through pgx v5 and pgxpool: many
// desks, each an append-only log that implements transcript.Log.
//
//	st, err := pgstore.Open(ctx, "postgres://app@db/chat?pool_max_conns=32")
//	if err != nil { ... }
//	defer st.Close()
//	m, err := st.Append(ctx, "eng", transcript.Message{Author: a, Content: c, Parent: p}) // m.Seq assigned
//	err = st.AppendBatch(ctx, "eng", msgs)                                               // all or nothing
//	p, err := transcript.Project(ctx, st.Log("eng"), transcript.Query{Conversation: transcript.Conversation{Desk: "eng"}})
//
// A host that has a pool already hands it to [New] instead; the Store then leaves it open.
//
// # Sequences in commit order
//
// A desk's rows are numbered 1, 2, 3, ... without a gap (a rejected append uses no number),
// and numbers are assigned in commit order: a reader that has seen Seq n never later sees a
// new row below n. That is what lets sharing's watermarks skip nothing. A plain sequence or
// BIGSERIAL column does not give it — two transactions take 1 and 2, 2 commits first, a
// reader moves its watermark to 2, and row 1 commits below it, unseen for good — so each
// append bumps its desk's head row (transcript_desks.head) inside its own transaction and
// holds that row's lock until it commits: appends to one desk run one at a time, appends to
// different desks never wait for each other's locks. When an append's rows reply to no
// stored row it is one round trip: BEGIN, the statement that moves the head, the statement
// that inserts the rows, COMMIT and the notification (see Watching for commits), so the
// desk's lock is never held while the client reads a result and answers it.
// (Unless they carry keys: one keyed row is inserted only if the desk does not hold its
// key, the head moved back if it does, and read then in a second round trip; a keyed batch
// goes the other way.) Otherwise it takes two round trips: the first moves the head and
// reads, under the desk's lock, the author and audience of the stored parents (by primary
// key: the reply rule needs them, never their content) and the stored rows holding the
// rows' keys (on the key index), and the second inserts the rows and commits.
//
// # Asides
//
// A row's Audience is kept in the audience column, NULL for a desk row: the JSON array of
// its authors in their wire form, in canonical order (see migrations/0003_audience.sql for
// why inline text). Append and AppendBatch apply the reply rule to every row through
// transcript.ResolveAudience, against the parent as stored (or, for a reply to an earlier
// row of the batch, as resolved), and store the audience it returns: a reply to an aside
// gets the aside's readers; a reply by someone who may not read its parent
// (transcript.ErrNotReadable), or one that lists other readers than its parent's
// (transcript.ErrInvalidAudience), is refused, with nothing stored and no content of the
// parent in the error. Reads return every row with its Audience, asides included: viewing
// is the walk's (transcript.Project and sharing.Prepare with a Query's Viewer), which elides
// what the viewer may not read. A Log decodes each distinct audience once (a bounded cache
// shared by the store) and hands every page new audience slices of its own.
//
// # Keys
//
// A row's Key (transcript.Message.Key, SPEC §11) is kept in the key column, NULL for a row
// without one (every row written before schema version 4 is one, and reads back
// unchanged), under a partial UNIQUE index on (desk, key) that holds only the rows with a
// key, so that rows without one cost it nothing (see migrations/0004_keys.sql). Append and
// AppendBatch check their messages' keys on it after the desk's lock is taken: a root's
// Append inserts its row only if its key is absent, and reads the stored row, in a second
// round trip once its transaction has ended, only if the key is present; other appends look
// their keys up under the lock, in their first round trip. Each present key is decided
// with transcript.MatchKey, after the checks
// and the reply rule a new row gets: the same message is not stored again (Append returns
// the stored row; AppendBatch skips it, and a BatchParent naming it is the stored row), a
// different one fails with a *transcript.KeyConflictError, inside a [*AppendError], and
// writes nothing. The lock makes appends of one key, from any number of processes, take
// turns, and each looks the key up after the one before committed: one stores the row, the
// others find it. The unique index is the last word if a writer that bypasses this package
// inserts a key meanwhile: the append is then tried again and finds it. [Store.LookupKeys]
// finds rows by key, thousands a query, for a caller (the import command) that names
// parents by key or tells new rows from present ones.
//
// # Tokens
//
// A Store is also a token.Store (SPEC §12, "Identity"): the service's bearer tokens are rows
// of transcript_tokens (schema version 5), each one participant on one desk, kept as the
// SHA-256 of its secret, never the secret, under a unique index that a lookup probes once a
// request, and named by its public ID (the primary key, COLLATE "C"). A token names its desk
// by name, byte for byte, and needs no desk row. Times are timestamptz, rounded down to the
// microsecond before they are sent and returned in UTC; a revocation keeps the first time
// (coalesce). An id is quoted in an error only once token.IsID accepts it: a string that
// is not one may be a secret pasted in the wrong place. Every method is one statement, and
// nothing is cached, so a token the command line adds or revokes while the service runs
// counts from the service's next lookup.
//
// # Books
//
// A Store is also a sharing.BookStore (SPEC §14): a participant's read states on a desk, its
// sharing.Book, are one row of transcript_books (schema version 6), keyed by the desk's
// name and the participant's author_kind and author_id (not its label), holding the book's
// JSON as text and a version that every save moves one up. A save is a compare-and-swap in
// one statement: an INSERT ... ON CONFLICT DO NOTHING for a new book, or an UPDATE ...
// WHERE version = the one the caller loaded, which under READ COMMITTED waits for a
// concurrent update of the row and then finds the version moved. A load and a save are
// each one probe of the primary key, uncached. Sessions of one participant, on any number of
// processes, thus never save over each other's acknowledgements: a save that lost the race
// is refused, and sharing.UpdateBook applies its change again to the book as stored.
//
// # Watching for commits
//
// [Store.Watch] reports the desks that rows are committed to, by any process on the
// database, for a server's live streams: every append that commits notifies (pg_notify on
// the channel transcript_desks, the desk's name as the payload, queued right after its
// COMMIT in the same round trip, as a transaction of its own that does not wait for a
// flush), and a Watch LISTENs on a connection of its own, outside the pool. A refused append
// never notifies, nor does a replay, but for the replay of one keyed root (an Append, or
// an AppendBatch of that one message): its one round trip commits before it knows that the
// key is present (a transaction that moves the head and back), so it notifies, spuriously. A committed append notifies, unless its
// connection is lost between the two or the notification fails (its rows then show at the
// desk's next append). When the listening connection is
// lost (a restart of the database, a network failure), Watch connects again with a backoff
// and then reports every desk once, since commits may have happened while it was not
// listening. The notification is not inside the append's transaction because PostgreSQL
// makes notifying transactions commit one at a time, each holding the notification queue's
// lock while its commit record is flushed: concurrent appends to different desks would no
// longer share one WAL flush.
//
// # Schema
//
// Five tables in the connection's schema: transcript_desks (name, head),
// transcript_messages (desk, seq, parent, author_kind, author_id, author_label, content,
// at, audience, key) with primary key (desk, seq) for the port's reads, an index on (desk,
// parent, seq) for thread lookups and a partial unique index on (desk, key) for keys,
// transcript_tokens (id, hash, desk, author_kind, author_id, author_label, created,
// revoked) with a unique index on hash, transcript_books (desk, author_kind, author_id,
// version, book) with primary key (desk, author_kind, author_id), and
// transcript_schema_version. Open and New create or migrate the schema with the versioned
// SQL files embedded in the package, in one transaction under an advisory lock
// (pg_advisory_xact_lock), so that several processes starting at once are safe; a database
// migrated by a newer version of the package is refused ([ErrSchemaTooNew]). A read-only
// Store (see Standbys) never migrates: it checks the version. Open creates the schema in a
// database with no table, or with [InitSchema] beside other tables; a database holding
// other tables but no store is refused without it ([ErrNotStore]), and left as it was.
//
// # Standbys
//
// Reads are what outgrow one database server first: every turn of every agent is a
// projection or a delta, while appends come at human and model pace. PostgreSQL's
// streaming replication gives read copies, hot standbys, that replay the primary's commits
// in the primary's order; a Store reads its Logs from them, and appends on the primary:
//
//	st, err := pgstore.Open(ctx, "postgres://app@primary/chat",
//		pgstore.WithStandbys("postgres://app@standby1/chat", "postgres://app@standby2/chat"))
//
// Each Log read goes to the next standby in turn. Appends, tokens, books, Desks, LookupKeys
// and Watch stay on the primary (a standby cannot LISTEN; notifications come from the
// primary). Open checks each standby: it must be in recovery, be a copy of the primary's
// database, and have replayed the primary's schema (Open waits up to 10 s for that; a
// standby behind is an error matching ErrSchemaBehind naming both versions). A standby
// that cannot be reached at Open (down, starting up, full, not answering) does not stop
// the Store from opening: reads skip it, and check it as Open would have once it answers
// (one that is then no standby of the primary's database is never read from); the Store
// reports both to WithStandbyReport's function.
//
// What a read through such a Store shows, and does not:
//
//   - Never a row out of order, never a hole. A desk's rows are numbered without a gap and
//     committed in Seq order, and a standby replays commits in the primary's order, so a
//     standby shows a prefix of each desk: every row up to some Seq. A read below a bound
//     b is taken from a standby only when it shows row b-1 (or b is 1); so a walk that
//     moves between standbys at different replay positions, or between a standby and the
//     primary, never reads a page with a row missing below a row it has seen, and a
//     watermark (package sharing) never passes a row its reader has not seen.
//   - Your own writes. After Append or AppendBatch returns through the Store, every read
//     of that desk through the Store shows the rows: a read from the newest is taken from a
//     standby only when it shows the desk's newest row the Store knows is committed (its
//     fence: what its appends returned, its reads showed and its Watches learned); a
//     standby that is behind is waited for, looking at its head every few milliseconds, up
//     to WithStandbyWait (1 s by default); then the read goes to the primary. A standby
//     whose wait ran out is not waited for again for 5 s (its answers are still taken when
//     they hold what a read needs), so a standby far behind costs one wait, not one a read.
//   - Never going back. A read of a desk through the Store never shows an older newest row
//     than one the Store has shown, appended or been told of by its Watch: after Watch
//     names a desk, a read through the Store shows every row committed before the name came
//     (the Watch reads the desk's head on the primary before it sends the name).
//   - Not: other processes' rows at once. Rows another Store or process appends reach this
//     Store's reads when a standby has replayed them, the replication lag, unless its Watch
//     named the desk first. A lagging standby delays news; it never loses it, and never
//     shows a row out of order. A read below a bound above every row the Store knows of,
//     which the standby does not show, goes to the primary, which alone can tell whether
//     the rows exist.
//
// A standby that fails (its connection refused or lost, a statement cancelled by a
// recovery conflict) is skipped for 100 ms, doubling with each failure in a row to 5 s,
// then tried again: once it answers, it is used again. A standby that keeps its connections but stops answering
// (a network partition, a frozen machine) fails a query after 2 s and is then skipped for
// 5 s at once: it delays one read by 2 s, and the wait for a lagging standby by as much,
// every 5 s while it hangs. When no standby can answer, reads go to the primary. The fences are one integer a
// desk, kept for the Store's life.
//
// A Store opened on a standby alone (Open detects a server in recovery), or with ReadOnly,
// is read-only: it checks the schema's version instead of migrating (an older one is an
// error matching ErrSchemaBehind, naming both versions), and refuses writes with
// ErrReadOnly. Its reads are its server's: a prefix of each desk, never going back, as far
// as that server has replayed.
//
// # Reads
//
// ReadBefore is one index range scan of (desk, seq), newest first, that stops after the rows
// asked for (plus one, to know whether older rows exist): its cost does not grow with the
// desk, asides or keys or not. A lookup by key is one probe of the (desk, key) index per
// key. Each Log reads a little ahead and answers the walk's next read from what it read, so
// that a projection usually costs one query. Every statement runs under the caller's
// context.
//
// # Bad input
//
// Append and AppendBatch refuse, with a [*AppendError] matching
// transcript.ErrInvalidMessage and nothing stored: a desk name transcript.ValidateDesk
// refuses ([ErrDeskName]), an invalid author, a
// Seq set by the caller, a parent that is not an older row of the same desk, content over
// the limit ([WithMaxContent], default 1 MiB), At outside the years 1 to 9999, an audience
// or a key transcript.ValidateNew refuses (a key over transcript.MaxKeyLen bytes, not
// UTF-8, or holding an unprintable character), a reply the reply rule refuses, strings
// PostgreSQL text cannot hold, in the author, the content or the audience: invalid UTF-8,
// and the NUL byte (U+0000), which is valid UTF-8 but which PostgreSQL's text type does not
// store ([ErrText]); and a batch naming one key on two messages ([ErrDuplicateKey]). A key
// conflict is not bad input: its [*AppendError] wraps a *transcript.KeyConflictError, which
// matches transcript.ErrKeyConflict and not transcript.ErrInvalidMessage.
package pgstore
