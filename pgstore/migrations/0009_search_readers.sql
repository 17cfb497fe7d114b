-- Version 9: the search index keyed by desk and reader set, so that a search reads only
-- the entries and rows of the rows its viewer may read on its desk.
--
-- A row's reader set is 0 for a desk row (audience NULL), which everyone reads, and for an
-- aside the keyed hash of its readers (transcript.Message.Readers: the author and the
-- audience, in canonical order), computed in Go (readerSetKey), never 0. A row of transcript_terms
-- holds the row's terms (for the exact check) and their keys: each a 64-bit keyed hash of
-- the desk and the term (termKey), xor the reader set, so that the GIN index's entries of one
-- desk's set of readers are nobody else's. The primary key and the thread index lead with
-- the desk and the set, so that a search walks the rows of the viewer's sets alone, never
-- the desk's other rows; there is no index on (desk, seq) alone.
--
-- transcript_term_readers lists, for each desk, who belongs to which of its asides' reader
-- sets: a viewer's sets are one probe of its primary key, which depends on that viewer on
-- that desk only. A set is listed once an aside of it with words is indexed.
--
-- The table of version 8 is dropped and the index rebuilt, in Go, in the same transaction
-- (rebuildTerms), as it is whenever transcript_terms_version does not name the running
-- program's Terms. A process of version 8 still running cannot write the new rows (their
-- reader set and keys are NOT NULL): its appends of rows with words fail until it is
-- replaced, rather than leave rows no search finds.
DROP TABLE transcript_terms;

CREATE TABLE transcript_terms (
	desk    text     NOT NULL,
	readers bigint   NOT NULL, -- the row's reader set: 0 for a desk row
	seq     bigint   NOT NULL,
	parent  bigint   NOT NULL, -- the row's parent, 0 for a root: a thread's search
	terms   text[] COLLATE "C" NOT NULL CHECK (cardinality(terms) > 0),
	keys    bigint[] NOT NULL CHECK (cardinality(keys) = cardinality(terms)),
	PRIMARY KEY (desk, readers, seq) -- a set's rows below a bound, newest first
);

-- A thread's replies in one reader set.
CREATE INDEX transcript_terms_thread ON transcript_terms (desk, readers, parent, seq) WHERE parent <> 0;

-- The rows of one desk and reader set holding every term of a search: keys @> $keys.
CREATE INDEX transcript_terms_keys ON transcript_terms USING gin (keys);

CREATE TABLE transcript_term_readers (
	desk    text     NOT NULL,
	kind    smallint NOT NULL, -- transcript.AuthorKind
	id      text     NOT NULL,
	readers bigint   NOT NULL,
	PRIMARY KEY (desk, kind, id, readers)
);

-- The tables transcript.Terms was computed with when the index was built (termsVersion):
-- one row; none until the index is built.
CREATE TABLE transcript_terms_version (
	terms text NOT NULL
);

-- The secret the keys are computed with (searchKey): 32 random bytes, made in Go once, when
-- the index is first built, so that nobody without the database can compute a key, nor
-- choose words or readers whose keys collide with another desk's or set's.
CREATE TABLE transcript_search_key (
	key bytea NOT NULL CHECK (length(key) = 32)
);

-- As in version 8: a process older than search updates a row's content or Redacted without
-- touching its terms, and the trigger deletes them. The row's author reads it, so its set
-- is 0 or one of the author's sets.
CREATE OR REPLACE FUNCTION transcript_terms_forget() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM transcript_terms
	WHERE desk = NEW.desk AND seq = NEW.seq AND readers IN (
		SELECT 0 UNION ALL
		SELECT readers FROM transcript_term_readers
		WHERE desk = NEW.desk AND kind = NEW.author_kind AND id = NEW.author_id);
	RETURN NULL;
END
$$;
