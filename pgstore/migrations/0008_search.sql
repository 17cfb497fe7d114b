-- Version 8: search (transcript.Searcher). A row of transcript_terms is the words a search
-- finds in one row of transcript_messages, transcript.IndexTerms of it as stored: the
-- library's Terms of its content, computed in Go, never by PostgreSQL's text search
-- configuration, which would decide for itself what a word is. A row no search finds (a
-- correction, a blank row, a redacted one) has none. Every append inserts its rows' terms
-- in its transaction, and a correction replaces its target's there: an edit's new words,
-- none for a redaction. The rows stored before this version are indexed by pgstore, in Go,
-- in the migration's transaction, right after this file (fillTerms).
--
-- A table of its own rather than a column of transcript_messages: rows are never widened
-- (the planner sizes a table it has no statistics of by its columns' widths, and one more
-- column of text made the append's lookups on a new desk pick the thread index over the
-- primary key), an erased row's words go with a DELETE, and migrating a large desk inserts
-- into a new table instead of writing a new version of every row.
--
-- COLLATE "C": a term is only ever compared for equality, byte for byte (terms @> ARRAY[..]),
-- and the index's order does not then depend on the operating system's locale data. The
-- desk's name is compared as transcript_messages compares it, so that the two join on
-- their primary keys.
CREATE TABLE transcript_terms (
	desk  text   NOT NULL,
	seq   bigint NOT NULL,
	terms text[] COLLATE "C" NOT NULL CHECK (cardinality(terms) > 0),
	PRIMARY KEY (desk, seq) -- a common word's search walks it backwards, as a page read does
);

-- The rows holding every term of a search: a GIN index of the arrays' elements, probed by
-- terms @> $terms. It indexes the terms alone, without the desk (btree_gin would let it hold
-- the desk too, but it is an extension a host may not have): a search keeps its desk's rows
-- among those the index finds.
CREATE INDEX transcript_terms_terms ON transcript_terms USING gin (terms);
