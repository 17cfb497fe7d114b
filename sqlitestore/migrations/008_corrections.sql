-- Version 8: corrections (transcript.Message.Corrects, Redacted, Revised). corrects is the
-- row a correction corrects, 0 for any other row; redacted is 1 on a redaction and on every
-- row whose content a redaction erased; revised is the newest correction applied to the
-- row, 0 for none. Every row written before this version is a plain row and reads back
-- unchanged; adding columns with constant defaults rewrites no row. The partial index holds
-- the corrections only, so plain rows cost it nothing: a redaction finds there the earlier
-- corrections of its target, to erase them.
ALTER TABLE messages ADD COLUMN corrects INTEGER NOT NULL DEFAULT 0 CHECK (corrects >= 0 AND corrects < seq);
ALTER TABLE messages ADD COLUMN redacted INTEGER NOT NULL DEFAULT 0 CHECK (redacted IN (0, 1));
ALTER TABLE messages ADD COLUMN revised INTEGER NOT NULL DEFAULT 0 CHECK (revised = 0 OR revised > seq);

CREATE INDEX messages_desk_corrects ON messages (desk, corrects, seq) WHERE corrects <> 0;
