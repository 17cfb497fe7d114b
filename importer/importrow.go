package importer

import (
	"time"

	"github.com/sharedesk/transcript"
)

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
	// ParentDeletable says ParentKey names the message a chat export's reply replied to,
	// which may have been deleted since (chatPrep.wholeHistory); ParentKeyInstead names
	// the parent the reply then takes: its thread's start, or "" for none, making it a
	// message of the channel.
	ParentDeletable  bool
	ParentKeyInstead string
	// ParentSeq, when not 0, names the parent by sequence: a row the desk holds already, or
	// a row of the same import with that Seq.
	ParentSeq transcript.Sequence
	// CorrectsKey and CorrectsSeq name, on a correction, its target as ParentKey and
	// ParentSeq name a parent: by key or by sequence. Its Message's Corrects is then 0.
	CorrectsKey string
	CorrectsSeq transcript.Sequence
	// Edit, when not nil, is how a chat export marks the message as edited: should the desk
	// hold the message with another text, the import appends an edit of it (see rowEdit).
	Edit *rowEdit
	// Seq, when not 0, is the sequence the file says the row has (an export's "seq"): a row
	// the desk holds already must be that row, a new row must be stored at that sequence.
	Seq transcript.Sequence
	// Where names the row in its file for an error message: "line 12", or
	// `"general/2024-05-01.json": message 1714550400.000100`. It never quotes content.
	Where string
}

// rowEdit is the edit a chat export says a message had: when the desk holds the message
// with another text, the import appends a correction by the message's author that gives
// the stored row the export's text, with Key as its key, so that a re-import replays it.
type rowEdit struct {
	Key string    // the message's key and the edit's time (editKey)
	At  time.Time // when the message was edited, or zero
}

// editKey returns the key of the edit of the message key made at the time edited (a
// Slack ts, or a time in RFC 3339): one key for one edit, however often it is imported.
func editKey(key, edited string) string { return key + "/edited/" + edited }

// namesTarget reports whether r is a correction: it names a target.
func (r *importRow) namesTarget() bool { return r.CorrectsKey != "" || r.CorrectsSeq != 0 }
