-- Version 9: search (transcript.Searcher). message_terms is an FTS5 index of every
-- searchable row's terms, as transcript.IndexTerms gives them (none for a correction, a
-- blank row or an erased one: such a row has no entry), its rowid the row's messages.id.
-- A row's entry is its terms, each written as its desk's id, "_" and the term (no term
-- holds "_"), joined by single spaces: every desk has a vocabulary of its own, so a search
-- in one desk reads nothing of another's. The library decides what a word is, not FTS5:
-- the ascii tokenizer, with "_" a token character, keeps every byte from 0x80 up inside a
-- token and lower-cases ASCII only, and the terms hold neither ASCII capitals nor
-- punctuation, so each term is one token, unchanged, and a quoted term in a query finds
-- exactly the rows that hold it. The table is contentless (it keeps no copy of the
-- entries) and only which rows hold a token is indexed (detail=none: no positions, no
-- columns; columnsize=0: no lengths). An entry is deleted by FTS5's 'delete' command with
-- the entry as it was written, which the store computes again from the row's content as
-- stored; secure-delete is on, so that the deleted tokens are removed from the index's
-- pages at once, not merely marked deleted until a merge. message_terms_version holds the
-- Unicode tables the entries were computed with (see termsVersion): Open rebuilds the
-- index when they are not the running program's, so that an entry is always computed again
-- as it was written. The tables are new; the rows a file holds already are indexed by the
-- migration's Go step (migrate.go). A process of a version before this one would write
-- rows without changing the index (an erased row's words would stay in it, and deleting
-- an entry it never wrote would corrupt it): the triggers on messages name a function
-- only processes that keep the index register (driver.go; never called: SQLite resolves
-- the name when it prepares a write), so such a process's insert,
-- edit or erasure fails ("no such function") and changes nothing.
CREATE VIRTUAL TABLE message_terms USING fts5 (
    terms,
    content = '',
    detail = none,
    columnsize = 0,
    tokenize = "ascii tokenchars '_'"
);

INSERT INTO message_terms (message_terms, rank) VALUES ('secure-delete', 1);

CREATE TABLE message_terms_version (version TEXT NOT NULL) STRICT;

CREATE TRIGGER messages_insert_keeps_index BEFORE INSERT ON messages
BEGIN
    SELECT sqlitestore_keeps_search_index() WHERE 0;
END;

CREATE TRIGGER messages_update_keeps_index BEFORE UPDATE OF content, redacted ON messages
BEGIN
    SELECT sqlitestore_keeps_search_index() WHERE 0;
END;
