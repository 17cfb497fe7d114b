-- Version 3: private asides (transcript.Message.Audience). NULL is a desk row, which the
-- whole desk reads; otherwise the row is an aside, and audience holds its Audience as
-- pgstore writes it: a JSON array of the authors in their wire form
-- ({"type":"agent","id":"triage","label":"Triage"}, as Author.MarshalJSON writes them, the
-- form export carries), in canonical order (by kind, then id), without spaces. The same
-- audience is always the same bytes, which lets a reader decode each distinct one once.
--
-- Why inline text, measured on 100,000 rows of ~130-byte content (PostgreSQL 15):
--   * Existing rows are not rewritten (ADD COLUMN without a default only changes the
--     catalog): their heap stays the same size, and they read back with a NULL audience.
--   * A new desk row's NULL costs its null bitmap, which takes the tuple header from 24 to
--     32 bytes: +2.7% of the heap (22.1 MB against 21.6 MB). An empty-string default costs
--     the same after alignment, and a reference to a table of audiences too.
--   * An aside costs ~74 bytes here (one to two readers), jsonb ~97: with 20% asides the
--     heap is 23.8 MB inline text, 24.1 MB jsonb, 22.1 MB with an integer reference to a
--     table of distinct audiences.
--   * The reference saves those bytes but makes every page read a join (or a second query
--     for the ids a reader has not seen) and every aside append an upsert into a second
--     table with a unique index on the audience. A 513-row page, inline: about the same time
--     as before the column (pgbench: 0.59-0.72 ms against 0.59-0.65 ms); with the join,
--     0.84-0.94 ms. Inline keeps a page read one index scan that adds one column; a channel
--     view of 100,000 rows, 20% asides, costs 1.01x the same desk's without asides
--     (BenchmarkChannelAsidesPaired).
--   * text rather than jsonb: fewer bytes, and the bytes pgstore wrote come back as written
--     (jsonb reorders keys and adds spaces), so the stored form is its own cache key. A host
--     can still query it: audience::jsonb @> '[{"type":"agent","id":"triage"}]'.
ALTER TABLE transcript_messages ADD COLUMN audience text;

-- Not a JSON array with at least one entry: not something pgstore wrote. NOT VALID skips
-- checking the existing rows, which are all NULL, so migrating a large table does not scan
-- it; every new row is checked, desk rows (NULL) without parsing anything.
ALTER TABLE transcript_messages ADD CONSTRAINT transcript_messages_audience
	CHECK (audience IS NULL OR (json_typeof(audience::json) = 'array' AND audience <> '[]')) NOT VALID;
