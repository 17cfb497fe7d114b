-- Version 9: search (transcript.Searcher). message_terms is an FTS5 index of every
-- searchable row's terms, as transcript.IndexTerms gives them (none for a correction, a
-- blank row or an erased one: such a row has no entry), its rowid the row's messages.id.
-- A row's entry is one document: the token "_" and its desk's id (no term holds "_", so it
-- never equals a word), then its terms, joined by single spaces. The library decides what
-- a word is, not FTS5: the ascii tokenizer keeps every byte from 0x80 up inside a token
-- and lower-cases ASCII only, and the terms hold neither ASCII capitals nor punctuation, so
-- each term is one token, unchanged, and a quoted term in a query finds exactly the rows
-- that hold it. The table is contentless (it keeps no copy of the text), deletes are
-- allowed (contentless_delete), only which rows hold a token is kept (detail=none: no
-- positions, no columns), and secure-delete is on, so that an erased row's terms are
-- removed from the index's pages, not merely marked deleted. The table is new; the rows
-- a file holds already are indexed by the migration's Go step (migrate.go).
CREATE VIRTUAL TABLE message_terms USING fts5 (
    terms,
    content = '',
    contentless_delete = 1,
    detail = none,
    tokenize = "ascii tokenchars '_'"
);

INSERT INTO message_terms (message_terms, rank) VALUES ('secure-delete', 1);
