-- Version 5: bearer tokens (package token). A row is one participant on
-- one desk. The secret is never stored, only its SHA-256, hash, by which the service finds
-- the token on every request: UNIQUE, so a lookup is one probe of its index. id is the
-- token's public name (token.IDOf: "tok_" and 12 hex digits of the SHA-256 of hash), which
-- token list and token revoke use; COLLATE "C" because it is compared and ordered byte for
-- byte (Tokens lists by created, then id), whatever the database's locale. desk is the
-- desk's name, not a transcript_desks row: a token may be made for a desk that holds no
-- message yet (a desk gets its row with its first message), and a name compares byte for
-- byte. The participant is three columns as transcript_messages has them. Times are
-- timestamptz, microseconds as PostgreSQL keeps them; revoked is NULL while the token is
-- not revoked. The table is new: no row of an older database changes.
CREATE TABLE transcript_tokens (
	id           text COLLATE "C" PRIMARY KEY CHECK (id ~ '^tok_[0-9a-f]{12}$'),
	hash         bytea       NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
	desk         text        NOT NULL CHECK (desk <> ''),
	author_kind  smallint    NOT NULL CHECK (author_kind BETWEEN 1 AND 4), -- transcript.AuthorKind
	author_id    text        NOT NULL,
	author_label text        NOT NULL,
	created      timestamptz NOT NULL,
	revoked      timestamptz
);
