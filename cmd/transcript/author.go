package main

import (
	"fmt"
	"strings"

	"github.com/sharedesk/transcript"
)

// authorFlag is a flag.Value naming an author: agent:ID[:LABEL], person:ID[:LABEL],
// system:KIND[:LABEL] or operator[:LABEL].
type authorFlag struct{ author transcript.Author }

const authorSyntax = "agent:ID[:LABEL], person:ID[:LABEL], system:KIND[:LABEL] or operator"

func (f *authorFlag) String() string {
	if f == nil || f.author.Kind == 0 {
		return ""
	}
	return f.author.String()
}

func (f *authorFlag) Set(s string) error {
	a, err := parseAuthor(s)
	if err != nil {
		return err
	}
	f.author = a
	return nil
}

func parseAuthor(s string) (transcript.Author, error) {
	kind, rest, _ := strings.Cut(s, ":")
	k, err := transcript.ParseAuthorKind(kind)
	if err != nil {
		return transcript.Author{}, fmt.Errorf("%q is not %s", s, authorSyntax)
	}
	a := transcript.Author{Kind: k}
	if k == transcript.KindOperator {
		a.Label = rest
	} else {
		a.ID, a.Label, _ = strings.Cut(rest, ":")
	}
	if err := a.Validate(); err != nil {
		return transcript.Author{}, fmt.Errorf("%q is not %s", s, authorSyntax)
	}
	return a, nil
}
