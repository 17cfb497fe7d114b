package main

import (
	"fmt"
	"strings"

	"github.com/sharedesk/transcript"
)

// audienceFlag is a flag.Value listing the participants a new row is for (its Audience):
// PARTICIPANT[,PARTICIPANT...] in authorFlag's syntax, the flag given once or more. A label
// in the list cannot hold a comma.
type audienceFlag struct{ audience []transcript.Author }

const audienceSyntax = "PARTICIPANT[,PARTICIPANT...], each " + authorSyntax

func (f *audienceFlag) String() string {
	if f == nil {
		return ""
	}
	names := make([]string, len(f.audience))
	for i, a := range f.audience {
		names[i] = a.String()
	}
	return strings.Join(names, ",")
}

// Set adds the participants of one --to value. An empty entry, one that is not a
// participant and one listed already (identity by kind and id, as transcript.Author.Same)
// are errors, and then nothing of the value is added.
func (f *audienceFlag) Set(s string) error {
	var added []transcript.Author
	for entry := range strings.SplitSeq(s, ",") {
		if entry == "" {
			return fmt.Errorf("%q has an empty entry: want %s", s, audienceSyntax)
		}
		a, err := parseAuthor(entry)
		if err != nil {
			return err
		}
		for _, b := range append(f.audience, added...) {
			if a.Same(b) {
				return fmt.Errorf("%s is listed twice", a)
			}
		}
		added = append(added, a)
	}
	f.audience = append(f.audience, added...)
	return nil
}
