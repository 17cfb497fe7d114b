package importer

import "github.com/sharedesk/transcript"

// importRow is one message an import brings, whatever the file's format (JSON Lines, a Slack
// or a Discord export), before the desk is consulted: what to store, how its parent is named,
// and where it came from, for error messages.
type importRow struct {
	// Message is the row to store: Author, Content, At, Audience and Key as the file gives
	// them. Its Parent is 0 when the file names its parent otherwise (ParentKey, ParentSeq).
	Message transcript.Message
	// ParentKey, when not empty, names the parent by key: a row of the same import, or a row
	// the desk holds already.
	ParentKey string
	// ParentSeq, when not 0, names the parent by sequence: a row the desk holds already, or
	// a row of the same import with that Seq.
	ParentSeq transcript.Sequence
	// Seq, when not 0, is the sequence the file says the row has (an export's "seq"): a row
	// the desk holds already must be that row, a new row must be stored at that sequence.
	Seq transcript.Sequence
	// Where names the row in its file for an error message: "line 12", or
	// `"general/2024-05-01.json": message 1714550400.000100`. It never quotes content.
	Where string
}
