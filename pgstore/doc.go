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
// A Store is safe for concurrent use, by any number of processes on one database.
//
// # Rows
//
// A desk's rows are numbered 1, 2, 3, ... without a gap, in commit order: a reader that has
// seen Seq n never later sees a new row below n, so sharing's watermarks skip nothing.
// Appends to one desk take turns on the desk's head row; appends to different desks never
// wait for each other. Append and AppendBatch apply transcript.Message.ValidateNew and the
// reply rule (transcript.Message.ResolveAudience, against the parent as stored) to every
// row and store the audience it returns; a refused append stores nothing and returns an
// [*AppendError] that names the row and never quotes a parent's content. A message with a
// key the desk already holds is decided by storage.MatchKey: the same message is not stored
// again (Append returns the stored row, AppendBatch skips it), a different one is a
// *transcript.KeyConflictError; of concurrent appends of one key, from any processes,
// exactly one stores the row. [Store.LookupKeys] finds rows by key.
//
// A correction (transcript.Message.Corrects) is decided by
// transcript.Message.ResolveCorrection against its target as stored, read under the desk's
// lock, and applied in the transaction that inserts it: the target's content, Redacted and
// Revised are updated, and a redaction erases the content of the target's earlier
// corrections too. [Store.RestoreBatch] stores an export's rows as they were, erased rows
// included.
//
// Reads return every row with its Audience, asides included: what a viewer may read is the
// walk's to decide (transcript.Project, sharing.Prepare). ReadBefore is one index range
// scan, newest first, whose cost does not grow with the desk; every statement runs under
// the caller's context.
//
// # Erasure
//
// A redaction erases at once: from its commit on, no read returns the erased content. Its
// bytes stay in the server's files until they are written over or removed:
//
//   - the old version of the row: PostgreSQL updates a row by writing a new version, and
//     the old one, content included, stays in transcript_messages' file as a dead row, as
//     do the erased row's words in transcript_terms'. Plain VACUUM, as autovacuum runs it,
//     marks their space free without overwriting it: the bytes stay until a new row reuses
//     the space. A digest that a correction deleted (transcript_digests) stays as a dead row
//     alike;
//   - TOAST: a content of more than about 2 kB is kept in the table's TOAST table, as
//     written or compressed (pglz or lz4, which anyone holding the file can undo), with the
//     same dead versions;
//   - indexes: the GIN index of transcript_terms keeps an erased word's 64-bit keyed hash
//     as a key, pointing at no row, until the index is built anew: someone holding the
//     database's files, and so the key (transcript_search_key), and a guessed word can
//     compute its hash and find it there;
//   - statistics: ANALYZE, which autovacuum runs too, copies sampled values into
//     pg_statistic (a content's most common values and histogram bounds, the most common
//     words of transcript_terms), where they may quote an erased row until the next
//     ANALYZE, and then as dead rows of pg_statistic;
//   - the write-ahead log: every insert and update is in pg_wal (with full_page_writes,
//     whole pages, other rows included) until a checkpoint whose redo point lies in a later
//     segment removes its segment. The current segment (16 MB) is never removed, however
//     many checkpoints pass, until it fills or pg_switch_wal ends it;
//   - recycled segments: with wal_recycle = on, the default, a checkpoint renames an old
//     segment as a future one without rewriting it, so its bytes stay until the server
//     writes over them, much later on a quiet server;
//   - segments kept back: wal_keep_size keeps that much WAL, a replication slot every
//     segment its consumer has not confirmed (and a logical slot's spill files in
//     pg_replslot hold decoded changes), and archive_mode each segment until it is
//     archived; the archive (archive_command, archive_library) keeps its copy until the
//     host purges it;
//   - standbys: each keeps its own copy of the tables and the WAL. It replays the primary's
//     vacuums, but removes WAL at its own restartpoints (CHECKPOINT on the standby makes
//     one at the last checkpoint it replayed), under its own wal_recycle;
//   - backups taken before the redaction (pg_basebackup, pg_dump, snapshots of the disk)
//     until they are deleted; the server's logs when they record statements with their
//     parameters (log_statement = 'all', log_min_duration_statement, auto_explain); and
//     the disk's free blocks, where a file removed or truncated leaves its bytes until the
//     file system reuses them.
//
// [Store.Compact], which the command's transcript compact --db DSN runs, does what the
// server allows to remove erased content from the primary's data directory: it rewrites
// the store's tables with VACUUM (FULL, ANALYZE), TOAST tables and indexes included, and
// pg_statistic with VACUUM FULL, ends the current WAL segment with pg_switch_wal, and
// checkpoints, which removes the segments before the new one and the old copies' files;
// with wal_recycle on, it then writes through every segment ahead (up to min_wal_size, or
// max_wal_size, of WAL), over the recycled ones. With wal_keep_size = 0, archive_mode =
// off and no replication slot (and wal_recycle = off, or a role that may list pg_wal), and
// no other session holding a snapshot while it rewrites the tables, no file under the
// primary's data directory holds erased content afterwards, pg_wal included. It reports
// each setting and state that keeps some, and reaches none of the other places above. It
// needs a superuser, or a role that owns the tables and the database, holds pg_checkpoint
// and may execute pg_switch_wal; while it rewrites a table, reads and appends wait, and it
// waits for a table's lock a second at most.
//
// # Search
//
// A Log is a transcript.Searcher: st.Log(desk).(transcript.Searcher).Search finds the
// newest rows holding every word of a query among those its viewer may read. The words are
// the library's (storage.Terms): each row's storage.IndexTerms are kept in
// transcript_terms, written by its append's transaction and changed by its corrections' (an
// edit's new words replace the old, a redaction deletes them), and found through a GIN
// index, never PostgreSQL's text search, so that the store finds what memlog's brute force
// finds, in every script. The index keys each row's words by its desk and its reader set
// (the desk's rows, or an aside's readers), and a search reads only the sets its viewer
// belongs to (the operator: every set of the desk), so its work, the index entries and
// rows it reads, depends only on rows the viewer may read on that desk, never on asides it
// is not party to nor on other desks; Log's SearchWork counts it. Which rows the viewer may
// read is checked again in the query, from the audience column. A search of a whole desk
// reads the viewer's rows among the desk's newest 1,024 below its bound, where a common
// word's page is; then, for a word in at most 4,096 of the viewer's rows of a set, the GIN
// index's rows of it; else the viewer's older rows in windows, each 4 times the last, down
// to its page. Searches are reads: with standbys, they go to a standby
// that has replayed every commit the Store knows of on the desk.
//
// # Tokens and books
//
// A Store is also a token.Store: the service's bearer tokens, each one participant on one
// desk, kept as the SHA-256 of the secret, never the secret. An id is quoted in an error
// only once token.IsID accepts it. It is also a books.Store: a participant's read
// states on a desk, saved by compare-and-swap, so that two sessions of one participant
// never save over each other's acknowledgements. Nothing is cached: a token added or
// revoked by another process counts from the next lookup. A Store without standbys is a
// token.Settler: each statement of a read under a context carrying a token.Pending reads
// nothing of the desk unless the token is good when it runs, and a read that shows it good
// settles the Pending, with no round trip of its own.
//
// # Digests
//
// A Log is a digest.Store: transcript_digests keeps every generation of each
// conversation's digest, a read finds the newest below a bound with one index probe, on the
// primary also in a Store with standbys, and a put stores a new generation in one round
// trip under the desk row's lock, as appends take it, only into the desk its fold read (a
// desk made anew under a deleted desk's name has another id). A correction's update of its
// target deletes, in the same transaction, the digests that stand for the target, and a
// desk row's deletion every digest of the desk (triggers of the schema, so that a process
// of an older version deletes them too). Digests are derived from rows: an export leaves
// them out, and a desk imported from one folds anew.
//
// # Watching for commits
//
// [Store.Watch] reports the desks that rows are committed to, by any process on the
// database (LISTEN/NOTIFY on a connection outside the pool). A committed append notifies
// unless its connection is lost right after the commit; a replay may notify spuriously.
// When the listening connection is lost, Watch reconnects with a backoff and then reports
// every desk once. [Store.WatchHeads] reports each desk's newest Seq with it, from the
// notification itself (a deletion as 0), and closes its channel when its connection is lost.
// [Store.WatchDigests] reports the conversations whose digests were stored, from the
// notification each put sends in its transaction, and closes its channel as WatchHeads does.
//
// # Schema
//
// Open and New create or migrate the schema with the versioned SQL files embedded in the
// package, in one transaction under an advisory lock, so that processes starting at once
// are safe. A schema migrated by a newer package is refused ([ErrSchemaTooNew]). Open
// creates the schema in a database with no table, or beside other tables with
// [InitSchema]; a database holding other tables but no store is [ErrNotStore] and left as
// it was. A read-only Store ([ReadOnly], or one opened on a standby) never migrates, checks
// the version ([ErrSchemaBehind] for an older one) and refuses writes with [ErrReadOnly].
// The migrations that add search and key its index by reader set index the rows already
// stored, in Go, in their transaction, as does Open when storage.Terms has changed
// since the index was built: on a large database it reads every row once, and appends
// wait for it ([WithIndexProgress] tells how far it is). Upgrade every process on the
// database before it runs: the rows that a process of a version before search appends
// afterwards get no terms, and no search ever finds them (nothing indexes them later); a
// row such a process edits or redacts loses its terms (a trigger deletes them), so it is
// found by no word, neither its old nor its new ones; a process of the version before the
// reader sets can no longer append rows that have words.
//
// # Standbys
//
// With [WithStandbys], a Store reads its Logs from hot standbys, in turn, and keeps
// appends, tokens, books, digests, Desks, LookupKeys and Watch on the primary:
//
//	st, err := pgstore.Open(ctx, "postgres://app@primary/chat",
//		pgstore.WithStandbys("postgres://app@standby1/chat", "postgres://app@standby2/chat"))
//
// Open checks that each standby is in recovery, is a copy of the primary's database and has
// replayed its schema (waiting up to 10 s; [ErrSchemaBehind] otherwise). One that cannot be
// reached then is checked once it answers; [WithStandbyReport] hears of both. Reads through
// such a Store:
//
//   - never show a row out of order or a hole: a read below a bound b goes to a standby
//     only when it shows row b-1;
//   - show every row committed to the desk before the read began, by this Store or any
//     other, once the Store has heard of it, and take a standby's answer only when it shows
//     every row the Store has heard of; a read waits up to [WithStandbyWait] (1 s) for a
//     standby to catch up, then goes to the primary. The Store hears of its own appends at
//     once, and of other processes' commits from a watch of the primary of its own (a
//     LISTEN connection, which costs the primary nothing per read), as soon as their
//     notifications come, usually within a millisecond of the commit. While that watch is
//     not listening (at Open, and after its connection is lost, until it listens again and
//     has read every desk's head), each read reads its desk's head on the primary first,
//     beside the standby's read. The watch needs a session of its own on the primary (not
//     a pooler in transaction mode, which drops LISTEN), as Watch does; a connection lost
//     without an error is noticed within 3 s (a ping after a second of silence), and until
//     then the Store hears of no other process's commit;
//   - never go back to an older newest row than one the Store has shown;
//   - never return content erased by a redaction the Store has heard of, by any process: a
//     read below a bound goes to a standby only when it has replayed every commit of the
//     desk the Store has heard of too. A redaction another process committed is heard of as
//     its notification comes; a read in between may still be answered by a standby that
//     has not replayed it;
//   - never fold into a digest content erased by a redaction that committed before the
//     fold began, by any process: a fold reads the desk's head on the primary first, and
//     its reads below it go to a standby only once it has replayed up to that head;
//   - never show a row of a deleted desk once the Store has heard of the deletion (its own
//     DeleteDesk, or a watch): a standby answers reads of the desk only once it has
//     replayed the delete, and a read that finds the desk gone from the primary (its
//     probe) is the primary's.
//
// When the primary does not answer the probe of a desk's head within 2 s, the standbys
// answer as far as the Store knows (its own writes, what a watch heard, [Store.Head]): a
// primary that cannot be reached commits no redaction.
//
// A standby that fails is skipped for a while (100 ms, doubling to 5 s); one that stops
// answering fails a query after 2 s and is skipped for 5 s. When no standby can answer,
// reads go to the primary.
//
// # Bad input
//
// Append and AppendBatch refuse, with an [*AppendError] matching
// transcript.ErrInvalidMessage and nothing stored, what transcript.Message.ValidateNew
// refuses, a desk name transcript.ValidateDesk refuses ([ErrDeskName]), a parent that is
// not an older row of the desk, a reply the reply rule refuses, a correction the correction
// rule refuses, text PostgreSQL cannot hold (the NUL byte, [ErrText]) and a batch naming
// one key twice ([ErrDuplicateKey]). A key conflict is not bad input: it matches
// transcript.ErrKeyConflict, not transcript.ErrInvalidMessage.
package pgstore
