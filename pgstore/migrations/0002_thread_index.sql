-- Version 2: thread lookups. A root's direct replies, in Seq order, without reading the
-- rest of the desk: the replies of one thread, or the first reply of each channel root.
CREATE INDEX transcript_messages_thread ON transcript_messages (desk, parent, seq);
