-- Version 7: corrections (transcript.Message.Corrects, Redacted, Revised). A correction is a
-- row that names the row it corrects (corrects, older than it); the append that inserts it
-- updates that row in the same transaction: its content (the edit's, or '' when redacted),
-- redacted and revised (the newest correction applied to it). A redaction also erases every
-- earlier correction of the row (content '', redacted). Those updates are the only ones a
-- row ever gets; rows are still never deleted.
--
-- Each column is NULL on a row it does not apply to (never 0 or false), so a row that is no
-- correction and was never corrected costs nothing more: its three bits fit in the null
-- bitmap's two bytes that a row with a NULL audience or key has already (12 columns), and
-- the header stays 32 bytes after alignment. ADD COLUMN without a default changes only the
-- catalog: no row is rewritten, and every row written before this version reads back as no
-- correction, never corrected.
ALTER TABLE transcript_messages
	ADD COLUMN corrects bigint,
	ADD COLUMN redacted boolean,
	ADD COLUMN revised  bigint;

-- NOT VALID: the existing rows are all NULL; every new or updated row is checked.
ALTER TABLE transcript_messages ADD CONSTRAINT transcript_messages_corrects
	CHECK (corrects IS NULL OR (corrects >= 1 AND corrects < seq AND parent = 0)) NOT VALID;
ALTER TABLE transcript_messages ADD CONSTRAINT transcript_messages_redacted
	CHECK (redacted IS NULL OR (redacted AND content = '')) NOT VALID;
ALTER TABLE transcript_messages ADD CONSTRAINT transcript_messages_revised
	CHECK (revised IS NULL OR revised > seq) NOT VALID;

-- A row's corrections, by its Seq: what a redaction erases with it. Partial: the rows that
-- correct nothing, most of a desk, cost it nothing, on disk or on append. Building it reads
-- the table once, under a lock that holds appends back meanwhile.
CREATE INDEX transcript_messages_corrections ON transcript_messages (desk, corrects, seq) WHERE corrects IS NOT NULL;
