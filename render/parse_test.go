package render_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
)

// envelopeRE matches one envelope; content holds no '<', so the first "\n</message>" ends it.
var envelopeRE = regexp.MustCompile(`^<message seq="(\d+)"(?: parent="(\d+)")? kind="([a-z]+)"(?: id="([^"<>]*)")?(?: label="([^"<>]*)")?(?: readers="([^"<>]*)")?>\n([^<]*)\n</message>`)

// parseEnvelopes reads back every envelope in s, which holds envelopes separated by blank
// lines and nothing else, and fails on anything it does not recognise.
func parseEnvelopes(s string) ([]transcript.Message, error) {
	var out []transcript.Message
	for len(s) > 0 {
		m := envelopeRE.FindStringSubmatch(s)
		if m == nil {
			return nil, fmt.Errorf("no envelope at %q", s[:min(len(s), 60)])
		}
		seq, _ := strconv.ParseUint(m[1], 10, 64)
		var parent uint64
		if m[2] != "" {
			parent, _ = strconv.ParseUint(m[2], 10, 64)
		}
		kind, err := transcript.ParseAuthorKind(m[3])
		if err != nil {
			return nil, err
		}
		id, err1 := unescape(m[4])
		label, err2 := unescape(m[5])
		content, err3 := unescape(m[7])
		if err1 != nil || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("bad escape in %q", m[0])
		}
		out = append(out, transcript.Message{
			Seq: transcript.Sequence(seq), Parent: transcript.Sequence(parent),
			Author: transcript.Author{Kind: kind, ID: id, Label: label}, Content: content,
		})
		s = strings.TrimPrefix(s[len(m[0]):], "\n\n")
	}
	return out, nil
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
