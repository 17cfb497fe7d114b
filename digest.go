package transcript

// Digest is standing context for the older history of one conversation: bounded text that
// stands for the conversation's rows up to Through that every participant may read (never an
// aside, a correction, a blank or a redacted row), so that one digest serves every viewer.
// Package digest folds and keeps digests; a Query with Digest set reads one.
type Digest struct {
	Conversation Conversation `json:"conversation"`
	Through      Sequence     `json:"through"`    // the newest row it stands for
	Rows         int          `json:"rows"`       // how many messages it stands for, every fold together
	Generation   int          `json:"generation"` // 1 for the conversation's first fold, then 2, 3, …
	Digester     string       `json:"digester"`   // who wrote the text: "extractive", "openai:MODEL", …
	Text         string       `json:"text"`
}

// correctsDigested reports whether m corrects a row that a digest of c through through may
// stand for: m is a correction of a row at or below through, in a thread after its root
// (a thread's digest folds its replies, never its root), and of a row every participant
// may read (the correction rule gives a correction its target's readers, and a digest
// folds no aside), so that a correction of an aside tells nothing to whoever may not read
// it. Which conversation the target belongs to is not known from m alone: a correction of
// a row of another conversation below through counts too.
func correctsDigested(c Conversation, through Sequence, m *Message) bool {
	return m.IsCorrection() && !m.IsAside() && m.Corrects <= through && (c.Thread == 0 || m.Corrects > c.Thread)
}
