-- Version 6: bearer tokens (package token). A row is one participant on
-- one desk. The secret is never stored, only its SHA-256, hash, by which the service finds
-- the token on every request: UNIQUE, so a lookup is a point SEARCH of its index. id is the
-- token's public name (token.IDOf: "tok_" and 12 hex digits of the SHA-256 of hash), which
-- token list and token revoke use. desk is the desk's name, not a desks row: a token may be
-- made for a desk that holds no message yet (a desk gets its row with its first message),
-- and a name compares byte for byte. The participant is three columns as the authors table
-- has them, not an authors row, which is written with messages only. Times are microseconds
-- since the Unix epoch, as messages' at_us; revoked_us is NULL while the token is not
-- revoked. The table is new: no row of an older file changes.
CREATE TABLE tokens (
    id         TEXT    NOT NULL PRIMARY KEY,
    hash       BLOB    NOT NULL UNIQUE CHECK (length(hash) = 32),
    desk       TEXT    NOT NULL CHECK (desk <> ''),
    kind       INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 4), -- transcript.AuthorKind
    ident      TEXT    NOT NULL,                              -- transcript.Author.ID
    label      TEXT    NOT NULL,
    created_us INTEGER NOT NULL,
    revoked_us INTEGER
) STRICT;
