package main

import (
	"fmt"

	"github.com/sharedesk/transcript"
)

// authorFlag is a flag.Value naming an author: agent:ID[:LABEL], person:ID[:LABEL],
// system:KIND[:LABEL] or operator[:LABEL].
type authorFlag struct{ author transcript.Author }

const authorSyntax = "agent:ID[:LABEL], person:ID[:LABEL], system:KIND[:LABEL] or operator[:LABEL]"

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

// parseAuthor reads an author as transcript.ParseAuthor does, with the command line's
// wording of what is wrong.
func parseAuthor(s string) (transcript.Author, error) {
	a, err := transcript.ParseAuthor(s)
	if err != nil {
		return transcript.Author{}, fmt.Errorf("%q is not %s", s, authorSyntax)
	}
	return a, nil
}
