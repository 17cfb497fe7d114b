-- Version 1: one table, the desk named in every row, times in nanoseconds (which cannot
-- hold dates past 2262), the author's kind as text, and only the (desk, seq) key.
CREATE TABLE messages (
    desk         TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    parent       INTEGER NOT NULL DEFAULT 0,
    author_kind  TEXT    NOT NULL,
    author_id    TEXT    NOT NULL DEFAULT '',
    author_label TEXT    NOT NULL DEFAULT '',
    content      TEXT    NOT NULL,
    at_ns        INTEGER NOT NULL,
    PRIMARY KEY (desk, seq)
);
