-- Version 7: read-state books (package sharing: a read state per participant and
-- per conversation). A row is one participant's book on one desk: book is its JSON
-- (sharing.Book.MarshalJSON: at most BookLimit states and EvictedLimit evicted
-- conversations, a few kilobytes), and version counts its saves, from 1, for SaveBook's
-- compare-and-swap (UPDATE ... WHERE version = the one loaded). The key is the desk's name,
-- not a desks row (a book may be kept for a desk that holds no message yet; a name compares
-- byte for byte), and the participant's identity, kind and ident as the authors table has
-- them, without the label: a participant who was renamed keeps its book. The primary key is
-- the table (WITHOUT ROWID): a load or a save is one point SEARCH of it. The table is new:
-- no row of an older file changes.
CREATE TABLE books (
    desk    TEXT    NOT NULL CHECK (desk <> ''),
    kind    INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 4), -- transcript.AuthorKind
    ident   TEXT    NOT NULL,                              -- transcript.Author.ID
    version INTEGER NOT NULL CHECK (version >= 1),
    book    TEXT    NOT NULL,
    PRIMARY KEY (desk, kind, ident)
) STRICT, WITHOUT ROWID;
