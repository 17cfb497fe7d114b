-- Version 2: desks get a row and a small integer id, so that every index key is two or three
-- integers; times are microseconds since the Unix epoch (any date a time.Time can hold to
-- the microsecond, well beyond year 9999); the author's kind is its transcript.AuthorKind
-- number; and (desk, parent, seq) indexes thread lookups. The tables are STRICT, so a value
-- of the wrong type is an error rather than stored as is.
CREATE TABLE desks (
    id   INTEGER PRIMARY KEY,
    name TEXT    NOT NULL UNIQUE
) STRICT;

INSERT INTO desks (name) SELECT DISTINCT desk FROM messages ORDER BY desk;

CREATE TABLE messages_v2 (
    id           INTEGER PRIMARY KEY,
    desk         INTEGER NOT NULL REFERENCES desks (id),
    seq          INTEGER NOT NULL CHECK (seq >= 1),
    parent       INTEGER NOT NULL CHECK (parent >= 0 AND parent < seq),
    author_kind  INTEGER NOT NULL CHECK (author_kind BETWEEN 1 AND 4),
    author_id    TEXT    NOT NULL,
    author_label TEXT    NOT NULL,
    content      TEXT    NOT NULL,
    at_us        INTEGER NOT NULL
) STRICT;

INSERT INTO messages_v2 (desk, seq, parent, author_kind, author_id, author_label, content, at_us)
SELECT d.id, m.seq, m.parent,
       CASE m.author_kind WHEN 'operator' THEN 1 WHEN 'person' THEN 2 WHEN 'agent' THEN 3 WHEN 'system' THEN 4 END,
       m.author_id, m.author_label, m.content,
       (m.at_ns - (m.at_ns % 1000 + 1000) % 1000) / 1000 -- floor division, also before 1970
FROM messages AS m JOIN desks AS d ON d.name = m.desk
ORDER BY d.id, m.seq;

DROP TABLE messages;
ALTER TABLE messages_v2 RENAME TO messages;

-- The port's reads: one desk, newest first, below a bound.
CREATE UNIQUE INDEX messages_desk_seq ON messages (desk, seq);
-- Thread lookups: the replies of one row, in order.
CREATE INDEX messages_desk_parent_seq ON messages (desk, parent, seq);
