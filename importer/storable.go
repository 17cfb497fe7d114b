package importer

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
)

// maxContent is the largest content both stores take by default.
const maxContent = sqlitestore.DefaultMaxContent

// wording is how a reader words what keeps a message from being stored.
type wording int

const (
	lineWording   wording = iota // a JSON Lines line: "content holds a NUL byte, …"
	exportWording                // a chat export's message: "its content holds a NUL byte, …"
)

// storeProblem says what keeps m from being stored, in the reader's wording, naming the
// field but never quoting it, or returns "" when a store takes m's texts: content over
// maxContent bytes (JSON Lines), and invalid UTF-8 or a NUL byte (no store takes one) in the
// content, the author's id or label, or (JSON Lines) an audience entry. It is the one place
// import checks them before the store does, so that every bad message is reported at once.
//
// TODO(validate): ValidateNew
func storeProblem(m transcript.Message, w wording) string {
	if w == exportWording {
		for _, f := range []struct{ name, text string }{{"content", m.Content}, {"author id", m.Author.ID}, {"author name", m.Author.Label}} {
			switch {
			case !utf8.ValidString(f.text):
				return "its " + f.name + " is not valid UTF-8"
			case strings.IndexByte(f.text, 0) >= 0:
				return "its " + f.name + " holds a NUL byte, which the stores refuse"
			}
		}
		return ""
	}
	if len(m.Content) > maxContent {
		return fmt.Sprintf("content of %d bytes is over the limit of %d bytes", len(m.Content), maxContent)
	}
	if f := nulField(m); f != "" {
		return f + " holds a NUL byte, which the stores refuse (PostgreSQL text cannot hold one)"
	}
	return ""
}

// nulField names the first of m's texts that holds a NUL byte, or returns "".
func nulField(m transcript.Message) string {
	for _, f := range []struct{ name, text string }{{"content", m.Content}, {"author id", m.Author.ID}, {"author label", m.Author.Label}} {
		if strings.IndexByte(f.text, 0) >= 0 {
			return f.name
		}
	}
	for i, a := range m.Audience {
		if strings.IndexByte(a.ID, 0) >= 0 || strings.IndexByte(a.Label, 0) >= 0 {
			return fmt.Sprintf("audience entry %d", i)
		}
	}
	return ""
}
