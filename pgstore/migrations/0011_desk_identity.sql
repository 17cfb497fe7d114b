-- Version 11: a desk's identity, and its digests go with it, whoever deletes it.
--
-- id tells a desk apart from every desk held before under its name: a desk's deletion
-- deletes its transcript_desks row, and the append that makes the desk anew inserts a row
-- with a new id. A fold reads it with the desk's head, and its put stores a digest only
-- while the desk has the id it read, so that no words of a deleted desk go into a desk
-- made anew under its name. Every desk held now gets one.
--
-- The trigger deletes a desk's digests in the transaction that deletes its row, for every
-- process that deletes desks, a process of version 10 or older that knows nothing of
-- digests among them, so that no digest outlives its desk to show under a desk made anew
-- under its name. A digest such a process left behind, whose desk the database no longer
-- holds, or whose through row it no longer holds, is deleted here. The search_path is the
-- migration's, as transcript_digests_forget's.
ALTER TABLE transcript_desks ADD COLUMN id bigint GENERATED ALWAYS AS IDENTITY;

DELETE FROM transcript_digests AS g
WHERE NOT EXISTS (SELECT FROM transcript_messages AS m WHERE m.desk = g.desk AND m.seq = g.through)
   OR NOT EXISTS (SELECT FROM transcript_desks AS d WHERE d.name = g.desk);

CREATE FUNCTION transcript_digests_desk_deleted() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	DELETE FROM transcript_digests WHERE desk = OLD.name;
	RETURN NULL;
END
$$;

CREATE TRIGGER transcript_digests_desk_deleted AFTER DELETE ON transcript_desks
FOR EACH ROW EXECUTE FUNCTION transcript_digests_desk_deleted();
