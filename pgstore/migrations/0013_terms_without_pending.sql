-- Version 13: the search index's GIN index keeps no pending list. With fastupdate on
-- (PostgreSQL's default), new entries wait in a list that every scan of the index reads
-- whole, whatever keys it asks for: a search for a word in no row read more of the index
-- once another desk gained asides, so what a search costs depended on rows its viewer may
-- not read. Entries now go straight into the index (appends pay for it, a little), and
-- the entries already pending are moved there now.
ALTER INDEX transcript_terms_keys SET (fastupdate = off);
SELECT gin_clean_pending_list('transcript_terms_keys'::regclass);
