package render

import (
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/sharedesk/transcript"
)

// Role is the speaker of a model turn. Rendering never produces a system role.
type Role string

// The two roles a rendered turn can have.
const (
	User      Role = "user"      // everything the viewer did not write, in envelopes
	Assistant Role = "assistant" // the viewer's own words, verbatim
)

// Turn is one model turn.
type Turn struct {
	Role Role
	// Name is a user turn's author, sanitised for OpenAI's name field ([A-Za-z0-9_-], at most
	// 64 bytes), such as "agent_review"; empty on assistant turns.
	Name    string
	Content string
}

// Turns returns one turn per message and per elision, in sequence order: the viewer's own
// messages (viewer.Same) as assistant turns with their current content verbatim (invalid
// UTF-8 replaced), everyone else's as user turns holding the message's Envelope, and each
// elision as a user turn holding its ElisionTag, without a Name. A correction (see
// WithCorrections) and a redacted row are user turns in their Envelope even when the viewer
// wrote them: they report a change, and hold no words to speak. msgs and elided are in
// ascending sequence, as a Projection or a Delta holds them.
func Turns(viewer transcript.Author, msgs []transcript.Message, elided ...transcript.Elision) []Turn {
	return View{Messages: msgs, Elided: elided}.Turns(viewer)
}

// Turns returns what the package's Turns returns for v's messages and elisions, after a
// user turn holding v's DigestTag, without a Name, when v has a digest.
func (v View) Turns(viewer transcript.Author) []Turn {
	turns := make([]Turn, 0, 1+len(v.Messages)+len(v.Elided))
	if v.Digest != nil {
		turns = append(turns, Turn{Role: User, Content: DigestTag(*v.Digest)})
	}
	for x := range entries(v.Messages, v.Elided) {
		switch {
		case x.e != nil:
			turns = append(turns, Turn{Role: User, Content: ElisionTag(*x.e)})
		case spoken(viewer, x.m):
			turns = append(turns, Turn{Role: Assistant, Content: validUTF8(x.m.Content)})
		default:
			turns = append(turns, Turn{Role: User, Name: apiName(x.m.Author), Content: Envelope(*x.m)})
		}
	}
	return turns
}

// spoken reports whether m is the viewer's own words, an assistant turn: its own message,
// neither a correction nor redacted.
func spoken(viewer transcript.Author, m *transcript.Message) bool {
	return viewer.Same(m.Author) && !m.IsCorrection() && !m.Redacted
}

// maxNameLen is the longest name OpenAI's chat completions accept.
const maxNameLen = 64

// apiName returns "kind_id" with every byte outside [A-Za-z0-9_-] replaced by '_', at most
// maxNameLen bytes. A name that lost bytes so (replaced, or cut) ends in '_' and 8 hex
// digits of a hash of "kind_id", so that two authors never share a name: it is how a model
// tells the user-role speakers apart.
func apiName(a transcript.Author) string {
	raw := a.Kind.String()
	if a.ID != "" {
		raw += "_" + a.ID
	}
	var b strings.Builder
	lossy := len(raw) > maxNameLen
	for i := 0; i < len(raw) && b.Len() < maxNameLen; i++ {
		c := raw[i]
		if c == '_' || c == '-' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9') {
			b.WriteByte(c)
		} else {
			b.WriteByte('_')
			lossy = true
		}
	}
	if !lossy {
		return b.String()
	}
	h := fnv.New32a()
	h.Write([]byte(raw))
	suffix := fmt.Sprintf("_%08x", h.Sum32())
	return b.String()[:min(b.Len(), maxNameLen-len(suffix))] + suffix
}
