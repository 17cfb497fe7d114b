-- Version 14: a digest's id is never given again. The digests table's id is INTEGER
-- PRIMARY KEY AUTOINCREMENT: a new digest takes an id above every id the table ever gave,
-- deleted digests' among them (sqlite_sequence keeps the largest), so that a watch reading
-- the digests above the newest id it read finds every digest stored since, also after a
-- correction or a desk's deletion deleted the newest ones. SQLite cannot change a column's
-- definition in place: the table is made anew under its name, with every digest and its id,
-- its text and columns, constraints and index as version 12 made them; the triggers that
-- name it (versions 12 and 13), dropped first so that the old table's renaming rewrites
-- none, are made again as they were. With secure_delete on the migrating connection, the
-- old table's pages are overwritten as they are freed. A process of version 13 that still
-- runs writes and reads the new table as it did the old one.
DROP TRIGGER messages_revised_deletes_digests;
DROP TRIGGER messages_deleted_deletes_digests;

ALTER TABLE digests RENAME TO digests_v13;

CREATE TABLE digests (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    desk       INTEGER NOT NULL REFERENCES desks (id),
    thread     INTEGER NOT NULL CHECK (thread >= 0),
    generation INTEGER NOT NULL CHECK (generation >= 1),
    through    INTEGER NOT NULL CHECK (through > thread),
    row_count  INTEGER NOT NULL CHECK (row_count >= 0),
    digester   TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    UNIQUE (desk, thread, generation)
) STRICT;

INSERT INTO digests (id, desk, thread, generation, through, row_count, digester, content)
SELECT id, desk, thread, generation, through, row_count, digester, content FROM digests_v13;

DROP TABLE digests_v13;

CREATE UNIQUE INDEX digests_desk_thread_through ON digests (desk, thread, through);

CREATE TRIGGER messages_revised_deletes_digests AFTER UPDATE OF revised ON messages
WHEN NEW.revised <> OLD.revised
BEGIN
    DELETE FROM digests WHERE desk = NEW.desk AND thread IN (0, NEW.parent) AND through >= NEW.seq;
END;

CREATE TRIGGER messages_deleted_deletes_digests AFTER DELETE ON messages
BEGIN
    DELETE FROM digests WHERE desk = OLD.desk AND through >= OLD.seq;
END;
