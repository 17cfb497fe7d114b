-- Version 11: a thread's search reads only the entries of its viewer's reader sets. A
-- reply's entry in message_terms gains, after its terms' tokens, the thread token of its
-- parent in its set: the first 64 bits of SHA-256(key, desk, set, NUL, "thread", parent),
-- written as a term's token is. A search within a thread walks the thread's token in each
-- of its viewer's sets (the replies its viewer may read), probing each reply for its words
-- by its id, and probes the thread's root alike: it no longer walks the thread's replies
-- on the (desk, parent, seq) index, which read the replies of every set, asides its viewer
-- may not read among them. The
-- entries are rebuilt, in Go, once (the Go step marks the index stale, and Open rebuilds a
-- stale index in the same transaction, a chunk at a time). A process of version 10 would
-- write entries without thread tokens and delete entries as it computes them (so corrupt
-- the index): the triggers on messages now name a function only processes that write
-- thread tokens register (driver.go), so such a process's insert, edit or erasure fails
-- ("no such function") and changes nothing.
DROP TRIGGER messages_insert_keeps_keyed_index;
DROP TRIGGER messages_update_keeps_keyed_index;

CREATE TRIGGER messages_insert_keeps_thread_index BEFORE INSERT ON messages
BEGIN
    SELECT sqlitestore_keeps_thread_index() WHERE 0;
END;

CREATE TRIGGER messages_update_keeps_thread_index BEFORE UPDATE OF content, redacted ON messages
BEGIN
    SELECT sqlitestore_keeps_thread_index() WHERE 0;
END;
