package main

import (
	"fmt"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
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
// wording of what is wrong: with the participant likely meant when s's kind is a typo of
// one (nearestAuthor).
func parseAuthor(s string) (transcript.Author, error) {
	a, err := transcript.ParseAuthor(s)
	if err == nil {
		return a, nil
	}
	if meant, ok := nearestAuthor(s); ok {
		return transcript.Author{}, fmt.Errorf("%q is not %s; did you mean %s?", s, authorSyntax, meant)
	}
	return transcript.Author{}, fmt.Errorf("%q is not %s", s, authorSyntax)
}

// authorKinds are the kinds a participant's text begins with.
var authorKinds = []string{
	transcript.KindAgent.String(), transcript.KindPerson.String(),
	transcript.KindSystem.String(), transcript.KindOperator.String(),
}

// nearestAuthor returns s with its kind, the text before its first ":", replaced by the
// kind it is a typo of (cliflag.Nearest: "agnet:triage" is agent:triage), and true, when
// that makes a participant. What the flag's error quotes of it is cliflag.Parse's to
// decide.
func nearestAuthor(s string) (string, bool) {
	kind, rest, hasRest := strings.Cut(s, ":")
	near, ok := cliflag.Nearest(kind, authorKinds)
	if !ok {
		return "", false
	}
	if hasRest {
		near += ":" + rest
	}
	if _, err := transcript.ParseAuthor(near); err != nil {
		return "", false
	}
	return near, true
}
