-- Version 4: private asides. A message's audience (transcript.Message.Audience) is a row of
-- the audiences table, which a message names by number, as it names its author: a desk has
-- a handful of distinct reader sets and up to millions of rows, so a read adds one integer
-- column, and the Store caches the sets. An audiences row is one audience as messages were
-- written with it: members is a JSON array of the authors in canonical order (by kind, then
-- ident), each {"kind":n,"ident":..,"label":..} in the authors table's terms, labels
-- included; it never changes and is never deleted. A message whose audience is NULL is a
-- desk row: every row written before this version is one, and reads back unchanged.
-- Adding a nullable column rewrites no row, so the migration costs nothing on a large file.
CREATE TABLE audiences (
    id      INTEGER PRIMARY KEY,
    members TEXT    NOT NULL UNIQUE CHECK (json_valid(members) AND json_array_length(members) > 0)
) STRICT;

ALTER TABLE messages ADD COLUMN audience INTEGER REFERENCES audiences (id);
