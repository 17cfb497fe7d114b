-- Version 4: keys (transcript.Message.Key). A key is a name the row's writer chose,
-- unique within its desk; NULL is a row without one (never ''), so every row written before
-- this version has none and reads back unchanged. ADD COLUMN without a default changes only
-- the catalog: no row is rewritten.
--
-- COLLATE "C": a key is only ever compared for equality, byte for byte, and a unique index
-- ordered by the C collation does not depend on the operating system's locale data, whose
-- changes (a glibc upgrade) can leave an index sorted by a locale out of order.
ALTER TABLE transcript_messages ADD COLUMN key text COLLATE "C";

-- NOT VALID: the existing rows are all NULL; every new row is checked.
ALTER TABLE transcript_messages ADD CONSTRAINT transcript_messages_key_not_empty
	CHECK (key <> '') NOT VALID;

-- A desk's row by key. Partial: the rows without a key, most of a desk, cost it nothing, on
-- disk or on append. Appends look their keys up on it under the desk's lock, so two
-- appends of one key never both insert; its UNIQUE constraint is the last word if a writer
-- that does not take the lock tries. Building it reads the table once (it is empty, as no
-- row has a key yet), under a lock that holds appends back meanwhile.
CREATE UNIQUE INDEX transcript_messages_key ON transcript_messages (desk, key) WHERE key IS NOT NULL;
