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

-- A process of an older version of pgstore, still running beside the new ones, updates a
-- row's content or Redacted without touching its terms: the trigger deletes them as it
-- does, in the same transaction, so that no erased word is found (an edited row is then
-- found by no word). It fires after the statement that updates the row, so a new process,
-- which writes the row's new terms in the statement after it, keeps them. The search_path is
-- the migration's, so that the table found is the store's whoever updates the row.
CREATE FUNCTION transcript_terms_forget() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM transcript_terms WHERE desk = NEW.desk AND seq = NEW.seq;
	RETURN NULL;
END
$$;

CREATE TRIGGER transcript_terms_forget AFTER UPDATE OF content, redacted ON transcript_messages
FOR EACH ROW WHEN (OLD.content IS DISTINCT FROM NEW.content OR OLD.redacted IS DISTINCT FROM NEW.redacted)
EXECUTE FUNCTION transcript_terms_forget();
