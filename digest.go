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
