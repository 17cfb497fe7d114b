-- Version 5: keys (transcript.Message.Key). A row's key is a name its writer chose,
-- unique within its desk; key is NULL for a row without one (never ''), so every row written
-- before this version has none and reads back unchanged. Adding a nullable column rewrites no
-- row. The index is partial: rows without a key, most of a desk, cost it nothing, neither on
-- disk nor on append; it finds a desk's row by key, and its UNIQUE constraint is the last
-- word on a key taken twice (Append looks the key up first, in the same transaction).
ALTER TABLE messages ADD COLUMN key TEXT CHECK (key <> '');

CREATE UNIQUE INDEX messages_desk_key ON messages (desk, key) WHERE key IS NOT NULL;
