-- Version 12: digests (transcript.Digest, digest.Store). A row is one generation of one
-- conversation's digest: desk, thread (the thread's root, 0 for the channel) and
-- generation are its key; through (the newest row it stands for) rises with the
-- generation, and the (desk, thread, through) index finds the newest digest below a bound
-- with one SEARCH. content is the digest's text, which no index holds: with secure_delete
-- on the writer's connection, a deleted digest's text is overwritten in the pages it
-- leaves. A digest is derived from rows, kept until a correction deletes it or its desk is
-- deleted, and never exported.
--
-- A correction's revision of its target (the one UPDATE that changes a row's revised)
-- deletes, in its own statement's transaction, the digests of the target's channel and of
-- its parent's thread that stand for it (through at or above its seq): the trigger does it
-- for every process that writes the file, a process of version 11 that still runs among
-- them, so that no digest keeps a redacted row's words. The table is new: no row of an
-- older file changes.
CREATE TABLE digests (
    id         INTEGER PRIMARY KEY,
    desk       INTEGER NOT NULL REFERENCES desks (id),
    thread     INTEGER NOT NULL CHECK (thread >= 0),
    generation INTEGER NOT NULL CHECK (generation >= 1),
    through    INTEGER NOT NULL CHECK (through > thread),
    row_count  INTEGER NOT NULL CHECK (row_count >= 0),
    digester   TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    UNIQUE (desk, thread, generation)
) STRICT;

CREATE UNIQUE INDEX digests_desk_thread_through ON digests (desk, thread, through);

CREATE TRIGGER messages_revised_deletes_digests AFTER UPDATE OF revised ON messages
WHEN NEW.revised <> OLD.revised
BEGIN
    DELETE FROM digests WHERE desk = NEW.desk AND thread IN (0, NEW.parent) AND through >= NEW.seq;
END;
