// Package desknames holds the desk names every test of transcript.ValidateDesk's rule tries,
// so that each place that applies the rule (the root, the stores, the token package, the
// server and the commands) refuses and accepts the same names.
package desknames

import "strings"

// Refused are names the rule refuses, by what is wrong with them.
var Refused = map[string]string{
	"empty":           "",
	"dot":             ".",
	"dot dot":         "..",
	"101 characters":  strings.Repeat("d", 101),
	"a slash":         "a/b",
	"a space":         "a b",
	"a NUL byte":      "a\x00b",
	"not UTF-8":       "a\xffb",
	"a percent sign":  "a%2Fb",
	"a backslash":     `a\b`,
	"a question mark": "a?b",
}

// Accepted are names the rule accepts, by what is notable about them.
var Accepted = map[string]string{
	"100 characters":               strings.Repeat("d", 100),
	"letters, digits and marks":    "eng-2_x.y",
	"100 non-ASCII letters":        strings.Repeat("é", 100),
	"dots that are not a path":     "...",
	"a leading dot":                ".eng",
	"non-ASCII letters and digits": "Ärger-٣",
}
