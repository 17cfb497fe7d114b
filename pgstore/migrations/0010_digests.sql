-- Version 10: digests (transcript.Digest, digest.Store). A row is one generation of one
-- conversation's digest: desk, thread (the thread's root, 0 for the channel) and
-- generation are its key; through (the newest row it stands for) rises with the
-- generation, and the (desk, thread, through) index finds the newest digest below a bound
-- with one probe. content is the digest's text, which no index holds. A digest is derived
-- from rows: kept until a correction deletes it or its desk is deleted (DeleteDesk), never
-- exported. The desk's name is compared as transcript_messages compares it, which the
-- trigger below matches it with. The table is new: no row of an older database changes.
CREATE TABLE transcript_digests (
	desk       text    NOT NULL,
	thread     bigint  NOT NULL CHECK (thread >= 0),
	generation integer NOT NULL CHECK (generation >= 1),
	through    bigint  NOT NULL CHECK (through > thread),
	row_count  bigint  NOT NULL CHECK (row_count >= 0),
	digester   text    NOT NULL,
	content    text    NOT NULL,
	PRIMARY KEY (desk, thread, generation)
);

CREATE UNIQUE INDEX transcript_digests_through ON transcript_digests (desk, thread, through);

-- A correction's revision of its target (the one UPDATE that changes a row's revised)
-- deletes, in the same transaction, the digests of the target's channel and of its
-- parent's thread that stand for it (through at or above its seq). The trigger does it
-- for every process that writes the database, a process of version 9 still running among
-- them, so that no digest keeps a redacted row's words. The search_path is the
-- migration's, so that the table found is the store's whoever updates the row.
CREATE FUNCTION transcript_digests_forget() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM transcript_digests
	WHERE desk = NEW.desk AND thread IN (0, NEW.parent) AND through >= NEW.seq;
	RETURN NULL;
END
$$;

CREATE TRIGGER transcript_digests_forget AFTER UPDATE OF revised ON transcript_messages
FOR EACH ROW WHEN (OLD.revised IS DISTINCT FROM NEW.revised)
EXECUTE FUNCTION transcript_digests_forget();
