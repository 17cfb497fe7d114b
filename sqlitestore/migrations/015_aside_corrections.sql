-- Version 15: a correction of an aside deletes no digest. A digest folds no aside, so none
-- holds an aside's words; were a correction of an aside (itself an aside, with the
-- target's readers) to delete the channel's digest, a reader who may not read the aside
-- would see the digest go and learn that an aside at or below its through was corrected.
-- The trigger of version 12 (made again as it was by version 14) is made anew to fire for
-- a desk row alone: a row whose audience is NULL. No row or digest changes. The trigger is
-- the schema's, so a process of version 14 that still runs follows the new rule too; its
-- puts still count a correction of an aside as superseding a fold, which only refuses a
-- digest the next fold stores.
DROP TRIGGER messages_revised_deletes_digests;

CREATE TRIGGER messages_revised_deletes_digests AFTER UPDATE OF revised ON messages
WHEN NEW.revised <> OLD.revised AND NEW.audience IS NULL
BEGIN
    DELETE FROM digests WHERE desk = NEW.desk AND thread IN (0, NEW.parent) AND through >= NEW.seq;
END;
