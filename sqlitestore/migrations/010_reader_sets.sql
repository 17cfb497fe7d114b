-- Version 10: the search index keyed by desk and reader set, in tokens that hold no word.
-- Every row belongs to one reader set of its desk: the desk's rows (audience NULL) to the
-- desk's public set, id 0, which has no row; an aside to the set of its readers (its
-- author and its audience, transcript.Message.Readers), a row of reader_sets, one per
-- desk and members (a JSON array of [kind, ident] pairs in canonical order; labels play no
-- part), made when the first row of that set is indexed, never changed or deleted.
-- reader_set_members lists each set's members, keyed (desk, kind, ident, set), so that a
-- search finds its viewer's sets with one range of that key: a read that depends only on
-- the viewer and the desk. message_terms is rebuilt in a new form: a row's entry is, for
-- each of its terms (transcript.IndexTerms), the first 64 bits of SHA-256(key, desk, set,
-- term), key the random search_key the migration's Go step makes once, written as 13 C1
-- control characters (U+0080 to U+009F, 5 bits each), which no term holds and the ascii
-- tokenizer keeps inside a token. A search's FTS5 query names only the tokens of its
-- viewer's sets (the operator's: all the desk's), so it reads no entry of an aside its
-- viewer may not read, nor of another desk; and no page of the index (leaves, interior
-- separators, message_terms_idx) holds a run of bytes of a word. The old table is dropped
-- (secure_delete zeroes its pages) and the new one filled by the Go step (migrate.go), in
-- chunks.
DROP TABLE message_terms;

CREATE TABLE search_key (key BLOB NOT NULL CHECK (length(key) = 16)) STRICT;

CREATE TABLE reader_sets (
    id      INTEGER PRIMARY KEY CHECK (id > 0),
    desk    INTEGER NOT NULL REFERENCES desks (id),
    members TEXT    NOT NULL,
    UNIQUE (desk, members)
) STRICT;

CREATE TABLE reader_set_members (
    desk       INTEGER NOT NULL,
    kind       INTEGER NOT NULL,
    ident      TEXT    NOT NULL,
    reader_set INTEGER NOT NULL REFERENCES reader_sets (id),
    PRIMARY KEY (desk, kind, ident, reader_set)
) STRICT, WITHOUT ROWID;

CREATE VIRTUAL TABLE message_terms USING fts5 (
    terms,
    content = '',
    detail = none,
    columnsize = 0,
    tokenize = 'ascii'
);

INSERT INTO message_terms (message_terms, rank) VALUES ('secure-delete', 1);

-- A process of version 9 registers the function version 9's triggers name, and would
-- write rows with entries of the old form, which this index can neither find nor delete:
-- the triggers now name a function only processes that write the keyed index register
-- (driver.go), so such a process's insert, edit or erasure fails ("no such function") and
-- changes nothing, as an older one's did since version 9.
DROP TRIGGER messages_insert_keeps_index;
DROP TRIGGER messages_update_keeps_index;

CREATE TRIGGER messages_insert_keeps_keyed_index BEFORE INSERT ON messages
BEGIN
    SELECT sqlitestore_keeps_keyed_index() WHERE 0;
END;

CREATE TRIGGER messages_update_keeps_keyed_index BEFORE UPDATE OF content, redacted ON messages
BEGIN
    SELECT sqlitestore_keeps_keyed_index() WHERE 0;
END;
