-- Version 1: desks and their rows.
--
-- A desk's head is the Seq of its newest row. Every append bumps it inside its own
-- transaction, which holds the desk row's lock until it commits: a desk's appends are
-- serialised, so its sequences are consecutive and assigned in commit order. Appends to
-- different desks lock different rows and never wait for each other.
CREATE TABLE transcript_desks (
	name text   PRIMARY KEY CHECK (name <> ''),
	head bigint NOT NULL CHECK (head >= 0)
);

-- One row of a desk's log. Rows are never updated or deleted, and a desk's sequences run
-- 1..head without a gap, so a parent exists exactly when 0 < parent < seq.
CREATE TABLE transcript_messages (
	desk         text        NOT NULL,
	seq          bigint      NOT NULL CHECK (seq >= 1),
	parent       bigint      NOT NULL CHECK (parent >= 0 AND parent < seq), -- 0: a root
	author_kind  smallint    NOT NULL CHECK (author_kind BETWEEN 1 AND 4), -- transcript.AuthorKind
	author_id    text        NOT NULL,
	author_label text        NOT NULL,
	content      text        NOT NULL,
	at           timestamptz NOT NULL,
	PRIMARY KEY (desk, seq) -- the port's reads: rows below a bound, newest first
);
