-- Version 13: a desk's digests go with its rows, whoever deletes them. A digest stands for
-- rows of its desk, and rows are deleted only when their desk is: the trigger deletes, in
-- the DELETE's own statement, every digest of a deleted row's desk whose through is at or
-- above the row's seq, which, once the desk's rows are gone, is every digest of the desk. It
-- does so for every process that writes the file, a process of version 12 or older that
-- deletes a desk without knowing of digests among them, so that no digest outlives its desk
-- to show under a desk made anew under its name. A digest such a process left behind, whose
-- through row the file no longer holds, is deleted here.
DELETE FROM digests
WHERE NOT EXISTS (SELECT 1 FROM messages WHERE desk = digests.desk AND seq = digests.through);

CREATE TRIGGER messages_deleted_deletes_digests AFTER DELETE ON messages
BEGIN
    DELETE FROM digests WHERE desk = OLD.desk AND through >= OLD.seq;
END;
