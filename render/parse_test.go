package render_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
)

// envelopeRE matches one envelope; content holds no '<', so the first "\n</message>" ends it.
// A redacted row's envelope is an empty element.
var envelopeRE = regexp.MustCompile(`^<message seq="(\d+)"(?: parent="(\d+)")?(?: corrects="(\d+)")? kind="([a-z]+)"(?: id="([^"<>]*)")?(?: label="([^"<>]*)")?(?: readers="([^"<>]*)")?(?: revised="(\d+)")?(?:( redacted="true")/>|>\n([^<]*)\n</message>)`)

// parseEnvelopes reads back every envelope in s, which holds envelopes separated by blank
// lines and nothing else, and fails on anything it does not recognise. Readers are not
// read back.
func parseEnvelopes(s string) ([]transcript.Message, error) {
	var out []transcript.Message
	for len(s) > 0 {
		m := envelopeRE.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("no envelope at %q", s[:min(len(s), 60)])
		}
		var kind transcript.AuthorKind
		if err := kind.UnmarshalText([]byte(m[4])); err != nil {
			return nil, err
		}
		id, err1 := unescape(m[5])
		label, err2 := unescape(m[6])
		content, err3 := unescape(m[10])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("bad escape in %q", m[0])
		}
		out = append(out, transcript.Message{
			Seq: seqAttr(m[1]), Parent: seqAttr(m[2]), Corrects: seqAttr(m[3]),
			Author: transcript.Author{Kind: kind, ID: id, Label: label}, Content: content,
			Revised: seqAttr(m[8]), Redacted: m[9] != "",
		})
		s = strings.TrimPrefix(s[len(m[0]):], "\n\n")
	}
	return out, nil
}

// seqAttr is a sequence attribute's value; 0 when the attribute is absent.
func seqAttr(s string) transcript.Sequence {
	n, _ := strconv.ParseUint(s, 10, 64)
	return transcript.Sequence(n)
}

var entityRE = regexp.MustCompile(`&(amp|lt|gt|quot|#\d+);|&`)

func unescape(s string) (string, error) {
	var err error
	out := entityRE.ReplaceAllStringFunc(s, func(e string) string {
		switch e {
		case "&amp;":
			return "&"
		case "&lt;":
			return "<"
		case "&gt;":
			return ">"
		case "&quot;":
			return `"`
		case "&":
			err = fmt.Errorf("bare & in %q", s)
			return e
		}
		n, _ := strconv.Atoi(e[2 : len(e)-1])
		return string(rune(n))
	})
	return out, err
}

// digestRE matches one digest tag; its text holds no '<', so the first "\n</digest>" ends it.
var digestRE = regexp.MustCompile(`^<digest of="(channel|thread)"(?: root="(\d+)")? through="(\d+)" rows="(\d+)" digester="([^"<>]*)">\n([^<]*)\n</digest>`)

// parseDigest reads back the digest tag at the start of s and returns it (Desk and
// Generation, which the tag does not state, left zero) with what follows it, a blank line
// taken off; it fails on anything else at the start.
func parseDigest(s string) (transcript.Digest, string, error) {
	m := digestRE.FindStringSubmatch(s)
	if m == nil {
		return transcript.Digest{}, "", fmt.Errorf("no digest at %q", s[:min(len(s), 60)])
	}
	if (m[1] == "thread") != (m[2] != "") {
		return transcript.Digest{}, "", fmt.Errorf("of=%q with root %q", m[1], m[2])
	}
	digester, err1 := unescape(m[5])
	text, err2 := unescape(m[6])
	if err1 != nil || err2 != nil {
		return transcript.Digest{}, "", fmt.Errorf("bad escape in %q", m[0])
	}
	rows, _ := strconv.Atoi(m[4])
	d := transcript.Digest{
		Conversation: transcript.Conversation{Thread: seqAttr(m[2])},
		Through:      seqAttr(m[3]), Rows: rows, Digester: digester, Text: text,
	}
	return d, strings.TrimPrefix(s[len(m[0]):], "\n\n"), nil
}
