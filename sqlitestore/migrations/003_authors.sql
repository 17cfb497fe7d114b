-- Version 3: an author is a row of its own, and a message names it by number. A desk has a
-- few dozen authors and up to millions of rows, so rows no longer repeat their author's id and
-- label, and a read returns five columns instead of seven. An authors row is one author as
-- messages were written by it (kind, id and label together): it never changes and is never
-- deleted, and a new label is a new row.
CREATE TABLE authors (
    id    INTEGER PRIMARY KEY,
    kind  INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 4),
    ident TEXT    NOT NULL, -- transcript.Author.ID
    label TEXT    NOT NULL,
    UNIQUE (kind, ident, label)
) STRICT;

INSERT INTO authors (kind, ident, label)
SELECT DISTINCT author_kind, author_id, author_label FROM messages ORDER BY 1, 2, 3;

CREATE TABLE messages_v3 (
    id      INTEGER PRIMARY KEY,
    desk    INTEGER NOT NULL REFERENCES desks (id),
    seq     INTEGER NOT NULL CHECK (seq >= 1),
    parent  INTEGER NOT NULL CHECK (parent >= 0 AND parent < seq),
    author  INTEGER NOT NULL REFERENCES authors (id),
    content TEXT    NOT NULL,
    at_us   INTEGER NOT NULL
) STRICT;

-- A LEFT JOIN: a row without its authors row would fail author's NOT NULL and abort the
-- migration, rather than be left out.
INSERT INTO messages_v3 (id, desk, seq, parent, author, content, at_us)
SELECT m.id, m.desk, m.seq, m.parent, a.id, m.content, m.at_us
FROM messages AS m
LEFT JOIN authors AS a ON a.kind = m.author_kind AND a.ident = m.author_id AND a.label = m.author_label
ORDER BY m.id;

DROP TABLE messages;
ALTER TABLE messages_v3 RENAME TO messages;

-- The port's reads: one desk, newest first, below a bound.
CREATE UNIQUE INDEX messages_desk_seq ON messages (desk, seq);
-- Thread lookups: the replies of one row, in order.
CREATE INDEX messages_desk_parent_seq ON messages (desk, parent, seq);
