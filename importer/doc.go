// Package importer loads a chat history into a desk: JSON Lines (the format `transcript
// export` writes), a Slack workspace export, or a DiscordChatExporter export.
//
// An import reads its [Source] whole first ([Read]): each message is checked alone (its
// JSON, its author, its audience, its key) and a bad one is kept as a row all the same, so
// that one run reports every problem. Then [Rows.Store] checks the rows against the desk and
// against each other, and appends the new ones in one AppendBatch: all or nothing. [Import]
// does both.
//
//	n, err := importer.Import(ctx, st, "main", importer.JSONLines(f, size))
//
// A host's own format is a [Source] too: its ReadRows hands the messages it read to
// [NewRows], and the import checks and stores them as it does a file's.
//
// Every format is incremental. A message carries a key (a line's "id", Slack's ts,
// Discord's message id), and a row whose key the desk holds already is that row: it adds
// nothing when it is the same message as [storage.MatchKey] compares them (author identity,
// parent, audience as [transcript.Message.ResolveAudience] resolves it, content; labels and
// times aside) and fails the import, naming what differs, when it is not. So importing a file twice adds nothing,
// and a later export adds only its new messages. A line may also give the "seq" an export
// wrote: a row the desk holds must be that row, and a new one must land exactly there, so
// that an export imports into an empty desk as the same rows.
//
// A message may be a correction (see transcript.Message.ResolveCorrection): a line's
// "corrects" or "corrects_seq" names its target as "parent" and "parent_seq" name a parent,
// and the store applies it as it appends it. An export writes what corrections left on each
// row (Revised, and Redacted on an erased row); a source whose rows carry that is an
// export, and its new rows are restored as they were stored, through the store's
// RestoreBatch, so that an export imports into an empty desk as the same rows, erased ones
// included. A later export imports into the desk an earlier one filled with the
// corrections made since: a row whose Revised names a later row of the file that corrects
// it is the desk's row whatever its text, and that correction, stored with the new rows,
// gives the desk's row the text, or the erasure, the file holds.
//
// A Slack or Discord message marked edited that the desk holds with an older text becomes
// an edit of it by its author, keyed by the message's key and the edit's time and timed by
// the edit, so that importing the export again replays it (Counts.Edited counts them); the newest edit by the export's own time wins, and an older export imported again
// never puts an older text back. A message first imported already edited is stored with
// such an edit too, which records how new its text is. A Slack or Discord message changed
// without an edit the export dates (a file deleted, a bot's update, a link's preview added
// later, a thread root deleted since) is kept as the desk holds it: which text is newer the
// export does not say, and an import never deletes (Counts.Kept counts them; a row
// corrected on the desk matches whatever the export's text, and counts as present alone).
// So is a message edited since that the desk holds blank, or whose edited text is blank:
// no store takes a correction of a blank row, nor an edit to a blank text.
//
// A Slack or Discord reply whose parent an earlier export held (a later export of a date
// range holds replies to older threads) is a reply to the desk's row with that key; a reply
// whose parent is in neither the export nor the desk fails the import, naming both. In a
// Discord export of a channel's whole history (no dateRange.after), such a parent was
// deleted, and the reply is imported where it stands without it (in its thread, or as a
// message of the channel).
//
// A parent is named by key (an earlier message of the import, or a row of the desk; one
// lookup for every format) or by seq; within one import a key and a seq name one row. Whatever is wrong is reported in one
// [*RowsError], each problem named by where it is in its source ("line 12", a Slack day
// file and ts), never quoting content, and nothing is written; a store's refusal of a row is
// a [*RowError] naming the row.
//
// The checks and the batch are not one transaction: a row another writer appends with a key
// of the import in between is skipped by AppendBatch when identical and refused when not,
// but rows appended in between move where the new rows land.
//
// A host that shows progress passes [WithProgress]. A host that would rather not open its
// database before it knows the rows are good passes it to [ImportInto], which opens it as
// it needs to: while the source is decoded, read-only when rows are bad, and not at all
// when they are bad and it does not exist yet.
package importer
