-- Version 6: read-state books (package sharing: a read state per participant and
-- per conversation). A row is one participant's book on one desk: book is its JSON
-- (sharing.Book.MarshalJSON: at most BookLimit states and EvictedLimit evicted
-- conversations, a few kilobytes), kept as text, exactly as written, since the store only
-- ever reads it whole; version counts its saves, from 1, for SaveBook's compare-and-swap
-- (UPDATE ... WHERE version = the one loaded: under READ COMMITTED a concurrent UPDATE of
-- the row waits for the first to commit and then finds the version moved, and a concurrent
-- INSERT of a new book waits and then does nothing). The key is the desk's name, not a
-- transcript_desks row (a book may be kept for a desk that holds no message yet; a name
-- compares byte for byte), and the participant's identity, author_kind and author_id as
-- transcript_messages has them, without the label: a participant who was renamed keeps its
-- book. A load or a save is one probe of the primary key. COLLATE "C": the key's texts are
-- only ever compared for equality, byte for byte, and an index ordered by the C collation
-- does not depend on the operating system's locale data (see 0004_keys.sql). The table is
-- new: no row of an older database changes.
CREATE TABLE transcript_books (
	desk        text     COLLATE "C" NOT NULL CHECK (desk <> ''),
	author_kind smallint NOT NULL CHECK (author_kind BETWEEN 1 AND 4), -- transcript.AuthorKind
	author_id   text     COLLATE "C" NOT NULL,
	version     bigint   NOT NULL CHECK (version >= 1),
	book        text     NOT NULL,
	PRIMARY KEY (desk, author_kind, author_id)
);
