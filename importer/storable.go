package importer

import (
	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// wording is how a reader words what keeps a message from being stored.
type wording int

const (
	lineWording   wording = iota // a JSON Lines line: "content holds a NUL byte at offset 3, …"
	exportWording                // a chat export's message: "its content holds a NUL byte at offset 3, …"
)

// storeProblem says what keeps m from being stored, in the reader's wording, or returns ""
// when transcript.Message.ValidateNew accepts m (storage.ValidateRestored, for a row only
// an export writes: see restoredRow): what no store keeps (content over
// transcript.MaxContent bytes, invalid UTF-8 or a NUL byte in a text, an At outside the
// years 1 to 9999), said as transcript.Message.ValidateNew says it, naming the field but
// never quoting it. Import asks it before the store does, so that every bad message is
// reported at once; a store opened with a lower content limit refuses more, and its refusal
// is a *RowError.
func storeProblem(m transcript.Message, w wording) string {
	validate := transcript.Message.ValidateNew
	if restoredRow(m) {
		validate = storage.ValidateRestored
	}
	err := validate(m)
	switch {
	case err == nil:
		return ""
	case w == exportWording:
		return "its " + err.Error()
	}
	return err.Error()
}

// probe returns r's message as transcript.Message.ValidateNew judges it: a correction's
// Corrects is set, to its CorrectsSeq or, for a target named by key, to 1, as the target is
// found later and nothing transcript.Message.ValidateNew says of a correction that
// decodeLine has not checked names it.
func (r *importRow) probe() transcript.Message {
	m := r.Message
	if r.namesTarget() {
		m.Corrects = max(r.CorrectsSeq, 1)
	}
	return m
}

// restoredRow reports whether m carries what only a log sets, and so comes from an export:
// a Revised, or Redacted on a row that corrects nothing (an erased row). A redaction, which
// carries Redacted too, is a writer's; an export holds its target, which carries Revised.
func restoredRow(m transcript.Message) bool {
	return m.Revised != 0 || (m.Redacted && !m.IsCorrection())
}
