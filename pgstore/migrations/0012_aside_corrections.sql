-- Version 12: a correction of an aside deletes no digest. A digest folds no aside, so none
-- holds an aside's words; were a correction of an aside (itself an aside, with the
-- target's readers) to delete the channel's digest, a reader who may not read the aside
-- would see the digest go and learn that an aside at or below its through was corrected.
-- The trigger of version 10 is made anew to fire for a desk row alone: a row whose
-- audience is NULL. The function it runs, and every row and digest, stay as they were. The
-- trigger is the schema's, so a process of version 11 that still runs follows the new rule
-- too; its puts still count a correction of an aside as superseding a fold, which only
-- refuses a digest the next fold stores.
DROP TRIGGER transcript_digests_forget ON transcript_messages;

CREATE TRIGGER transcript_digests_forget AFTER UPDATE OF revised ON transcript_messages
FOR EACH ROW WHEN (OLD.revised IS DISTINCT FROM NEW.revised AND NEW.audience IS NULL)
EXECUTE FUNCTION transcript_digests_forget();
