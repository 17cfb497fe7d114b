// Package sqlitestore is the embedded default store: the logs of any number of desks in one
// SQLite file, through a pure Go driver (no cgo), so go install works anywhere.
//
//	st, err := sqlitestore.Open(ctx, "desk.db") // creates or migrates the schema
//	if err != nil { ... }
//	defer st.Close()
//	m, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "deploy?"})
//	proj, err := transcript.Project(ctx, st.Log("eng"), transcript.Query{})
//
// Each desk's rows are numbered 1, 2, 3, ... with no gaps: a refused append or batch uses no
// number, and numbers are assigned in commit order, so a reader that has seen row n never
// later sees a new row below n. AppendBatch is all or nothing, also when the process is
// killed in the middle of it.
//
// The file is in WAL mode with synchronous=FULL: appends take turns on one writer connection
// and are durable when they return; reads use a pool of connections and never wait for an
// append. Every read is an index range: (desk, seq) for a page of the port, (desk, parent,
// seq) for thread lookups, (desk, key) for keys; none scans a desk.
//
// A row names its author by number: each distinct author (kind, id and label together, as
// rows were written by it) is one row of an authors table, which never changes, so a Store
// caches it without ever invalidating it. A read thus returns five columns a row, not seven,
// and a desk's rows do not repeat their authors' labels.
//
// An aside (transcript.Message.Audience) names its audience the same way: each distinct
// audience, its authors in canonical order with their labels, is one row of an audiences
// table, and a row's audience column is NULL for a desk row (every row written before
// schema version 4 is one). A read adds that one column, and hands out audiences copied
// from the Store's cache, all of a page's in one new array. Append and AppendBatch apply
// the reply rule through transcript.Message.ResolveAudience to every new row, reading a
// stored parent's author and audience in the write transaction, and store what it returns.
//
// A row's key (transcript.Message.Key) is a column of its own, NULL for a row
// without one (every row written before schema version 5 is one, and reads back
// unchanged), under a partial UNIQUE index on (desk, key) that holds only the rows with a
// key, so rows without one cost it nothing. A read adds that column. Append and AppendBatch
// look the keys of their messages up on that index in the write transaction, which holds
// the file's write lock, and decide each present key with storage.MatchKey: the same
// message is not stored again (Append returns the stored row, AppendBatch skips it, and a
// re-imported batch writes nothing), a different one fails with a
// *transcript.KeyConflictError. LookupKeys finds rows by key, many thousands a call, for a
// caller (the import command) that names parents by key or tells new rows from present ones.
//
// A correction (transcript.Message.Corrects, Redacted and Revised: three columns, schema
// version 8) is a row of its own that Append and AppendBatch decide with the correction
// rule (transcript.Message.ResolveCorrection, through storage.Batch.Settle), its target
// read with the parents in the write transaction, and apply in that transaction: the
// target's content, redacted and revised are updated, and a redaction erases every earlier
// correction of the target, found on a partial (desk, corrects, seq) index that holds
// corrections only. RestoreBatch stores an export's rows as they were stored, erased ones
// included. Erasure is for good: the writer runs with secure_delete, so what a write
// removes is overwritten with zeros, and Close checkpoints the write-ahead log into the
// database and truncates it, so once a redaction has committed and the Store is closed, no
// file of the database holds the erased bytes. Until then the write-ahead log may still
// hold them; while another process holds the file open, the last Store to close the file,
// a read-only one too, checkpoints it.
//
// A desk's log is a digest.Store: it keeps every generation of each conversation's digest
// (schema version 12), reads the newest below a bound with one SEARCH, and stores a new
// generation in a write transaction, in turn with the appends, only into the desk its fold
// read (a desk made anew under a deleted desk's name has another id). A correction's update
// of its target deletes, in the same transaction, the digests that stand for the target,
// and a deleted row every digest of its desk at or above it (triggers of the schema, so
// that every writer of the file does it, schema version 13), and their text is
// erased from the file as a row's is. Digests are derived from rows: an export leaves them
// out, and a desk imported from one folds anew.
//
// A desk's log is a transcript.Searcher: Search finds the newest rows the viewer may read
// that hold every word of a text, on an FTS5 index of the library's own terms
// (storage.IndexTerms, never FTS5's idea of a word): the store finds exactly what
// memlog's brute force finds, in every script. The index keys every entry by desk and by
// reader set (schema version 10): a desk's rows (no audience) form its public set, and the
// asides with the same readers (transcript.Message.Readers) one set each, its members
// listed under (desk, kind, ident). A term of a row is indexed as a token of its own for
// its desk and its set: the first 64 bits of SHA-256 of a random key the file keeps
// (search_key, made once), the desk, the set and the term, written as 13 characters from
// U+0080 to U+009F, which no word holds. A search finds its viewer's sets on the members
// key (the operator's: all of the desk's), and asks FTS5 for their tokens only, so it
// reads no entry of an aside its viewer may not read, nor of another desk: the work of an
// outsider's search for a word found only in asides is that of a word found nowhere. The
// store counts that work (entries and rows read) for the tests. The index is written in
// the transaction of every append, batch and restore, and corrections change it in
// theirs: an edited row is found by its new words only, an erased row and every
// correction by nothing. A search is one query (within a thread, then a probe of its
// root): FTS5 yields the viewer's candidates newest first, and scope and bound are decided
// in it, so none reads the desk row by row. The
// index keeps no copy of the entries: a row's entry is computed again from its content to
// delete it, and Open rebuilds the index when it was computed with other Unicode tables
// (an upgrade of Go or x/text); the migration to schema 10 rebuilds it once, in Go, a
// chunk at a time (WithIndexProgress tells how far it has come), as does the migration
// to schema 11. Within a thread, a search reads its viewer's sets alone too: a reply's
// entry also holds a token of its parent in its set (schema version 11), and the search
// walks that token in the viewer's sets, the viewer's replies newest first, probing the
// index for each by its id, so that a common word in a small thread does not read the
// desk's other matches; the root is looked up on its key and probed alike. The replies
// of asides its viewer may not read are other tokens, never walked.
//
// What the index leaves after an erasure: FTS5's secure-delete removes an erased row's
// tokens from the index's leaves, and interior pages keep at most a prefix of some token
// as a separator; tokens are hashes, so no page of the index holds a run of bytes of a
// word, before or after an erasure. The key is in the file, though: someone holding the
// file and a guess (a word, a desk and a reader set) can compute the guess's token and
// look for it, and so confirm that a live row of that desk and set holds the word, as
// they could by reading the row. After the row's erasure, what may remain is a prefix of
// its token, kept as a separator by an interior page, up to the whole token: with the key,
// a guessed word, desk and reader set give a token whose prefix can be compared with it, so
// a holder of the file can still confirm a guess of an erased word whose token began a
// page, though never read a word back. Holding the file is holding the desk's live content
// in any case.
//
// Every process that writes a file must run this version or later once the file is at
// schema version 9: an older one would append, edit and erase rows without changing the
// index as this one does, leaving an erased row's words in it and corrupting it. The
// triggers on messages name a function only processes of the file's schema register
// (indexWriterFunction), so an older process's insert, edit or erasure fails with "no
// such function" and changes nothing.
//
// A Store is also a token.Store: the service's bearer tokens are rows
// of a tokens table (schema version 6), each one participant on one desk, kept as the
// SHA-256 of its secret, never the secret, under a UNIQUE index that a lookup searches once
// a request, and named by its public ID. A token names its desk by name, byte for byte, and
// needs no desk row; its texts obey the rule below (token.Token.Validate checks them).
// Adding and revoking write on the writer connection; lookups and lists read on the readers,
// uncached, so a token the command line adds or revokes while the service runs counts from
// the service's next lookup.
//
// A Store is also a books.Store: a participant's read states on a desk, its
// sharing.Book, are one row of a books table (schema version 7), keyed by the desk's name
// and the participant's kind and id (not its label), holding the book's JSON and a version
// that every save moves one up. A save is a compare-and-swap in one statement on the writer
// connection: an INSERT that writes nothing when a book is stored, or an UPDATE that writes
// nothing unless the version stored is the one the caller loaded; a load is one point
// SEARCH of the primary key on the readers, uncached. Sessions of one participant, in one
// process or several, thus never save over each other's acknowledgements: a save that lost
// the race is refused, and books.Update applies its change again to the book as
// stored.
//
// Store.Watch reports the desks that rows are committed to, by this Store or another process
// on the file (the transcript append command, while the service runs), for a server's live
// streams. SQLite tells no connection of another's commits, so a Watch polls: every 200 ms
// (WithWatchInterval) it reads PRAGMA data_version on a reader connection of its own, which
// changes when any other connection commits, and only then every desk's newest Seq, in one
// query of one index probe a desk, and reports the desks whose newest row moved. An append
// through the Store reports its desk to the Store's Watches as soon as it commits, without
// waiting for a poll. Store.WatchDigests polls the same way and reports the conversations
// whose digests were stored since, by any process: a range of the digests' ids (never
// given again) above the newest one it read, never the digests held.
//
// Text the store keeps (desk names, content, the ids and labels of authors and audience
// entries, keys) must be valid UTF-8 without a NUL byte: SQLite could keep a NUL, but pgstore
// cannot, and refusing it in both stores lets a desk move from one to the other. (Versions before schema version 3 took NUL
// bytes; such rows are kept and read back as written.)
//
// The schema is versioned (SchemaVersion) and migrated by Open from embedded SQL files, one
// per version (with a Go step where SQL alone cannot do it), all pending ones in one
// transaction. The migrator is a page of code rather
// than a library such as goose: the store needs only forward migrations, applied at Open
// inside the same IMMEDIATE transaction that reads the version (so concurrent Opens migrate
// once), and no command-line tool, global registry or extra dependency.
//
// Open creates the schema only in a file that holds nothing yet, a new or empty one; it
// looks at the file on a read-only connection first, so that a directory, a file that is
// not a SQLite database and another program's database are refused ([ErrNotStore]) with
// not a byte written. [ReadOnly] opens a store for reading only: it creates, initializes
// and migrates nothing, and a store at an older version is a [*SchemaError] matching
// [ErrSchemaBehind].
package sqlitestore
