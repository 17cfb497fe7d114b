package main

import (
	"strings"
	"testing"
)

// TestUnknownArgumentsAreNotQuoted: a token's secret pasted where a command, an argument, a
// flag or a flag's value goes is never written back, on either output, while a plain name
// still is; the error says what was wrong without it.
func TestUnknownArgumentsAreNotQuoted(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	c.ok("append", "--create", "hi")
	secret := strings.TrimSpace(c.ok("token", "add", "--as", "agent:triage"))
	for _, tc := range []struct {
		args []string
		code int
		want string // what standard error's first line says instead
	}{
		{[]string{"token", secret}, exitUsage, "not quoted"},
		{[]string{secret}, exitUsage, "unknown command (not quoted: it could be a secret)"},
		{[]string{"help", secret}, exitUsage, "unknown command (not quoted: it could be a secret)"},
		{[]string{"token", "add", "--as", "agent:triage", secret}, exitUsage, "token add takes no arguments (given one, not quoted: it could be a secret)"},
		{[]string{"view", secret}, exitUsage, "view takes no arguments (given one, not quoted: it could be a secret)"},
		{[]string{"view", "--as", secret}, exitUsage, "invalid value for flag -as (not quoted: it could be a secret); -as: the participant whose view it is: agent:ID"},
		{[]string{"append", "--to", "agent:x," + secret, "hi"}, exitUsage, "invalid value for flag -to (not quoted: it could be a secret); -to: make the message an aside"},
		{[]string{"view", "--" + secret}, exitUsage, "flag provided but not defined (not quoted: it could be a secret)"},
		{[]string{"edit", secret, "text"}, exitUsage, "edit: SEQ is not a row's seq (a whole number from 1; not quoted: it could be a secret)"},
		{[]string{"redact", secret}, exitUsage, "redact: SEQ is not a row's seq"},
		{[]string{"--desk", "main", "token", "revoke", secret}, exitUsage, "did you mean transcript token --desk main revoke SECRET?"},
		{[]string{"--db", "postgres://app:hunter2pw@db.example/chat", "view"}, exitUsage, "did you mean transcript view --db postgres://app:xxxxx@db.example/chat?"},
		{[]string{"--db", "postgres://app@db.example/chat?password=hunter2pw", "view"}, exitUsage, `did you mean transcript view --db "postgres://app@db.example/chat?password=xxxxx"?`},
		{[]string{"view", "--db", "host=/tmp dbname=chat password=hunter2pw"}, exitUsage, "--db host=/tmp dbname=chat password=xxxxx is a key/value connection string"},
		{[]string{"append", "--create", "--db", "dbname=chat password=hunter2pw", "hi"}, exitUsage, "--db dbname=chat password=xxxxx is a key/value connection string"},
		{[]string{"view", "--desk", secret}, exitError, "no desk of the name given (not quoted: it could be a secret)"},
		{[]string{"view", "--db", secret}, exitError, "no database at the path given (not quoted: it could be a secret)"},
		{[]string{"append", "--db", secret, "hi"}, exitError, "no database at the path given (not quoted: it could be a secret), so no desk"},
	} {
		r := c.run(tc.args...)
		shown := strings.ReplaceAll(strings.Join(tc.args, " "), secret, "SECRET")
		first, _, _ := strings.Cut(r.stderr, "\n")
		switch {
		case r.code != tc.code:
			t.Errorf("transcript %s: exit %d, want %d:\n%s", shown, r.code, tc.code, strings.ReplaceAll(r.stderr, secret, "SECRET"))
		case strings.Contains(r.stderr+r.stdout, secret), strings.Contains(r.stderr, "hunter2pw"):
			t.Errorf("transcript %s: the secret is written back: %s", shown, strings.ReplaceAll(first, secret, "SECRET"))
		case !strings.Contains(first, tc.want):
			t.Errorf("transcript %s: %s\nwant it to say %q", shown, first, tc.want)
		}
	}
	// A plain name is still quoted, with what it was likely meant for.
	for args, want := range map[string]string{
		"frobnicate":          `unknown command "frobnicate"`,
		"view eng":            "view takes no arguments; did you mean --desk eng?",
		"view 7":              "view takes no arguments; did you mean --thread 7?",
		"view --as robot":     `invalid value "robot" for flag -as: "robot" is not agent:ID`,
		"redact abc":          `redact: "abc" is not a row's seq`,
		"redact 0":            `redact: "0" is not a row's seq`,
		"view --bogus-flag x": "flag provided but not defined: -bogus-flag",
	} {
		if r := c.want(exitUsage, strings.Fields(args)...); !strings.Contains(r.stderr, want) {
			t.Errorf("transcript %s: %s\nwant it to say %q", args, r.stderr, want)
		}
	}
}

// TestTypoSuggestsTheNearest: a mistyped command or flag, one or two edits from a known
// one, is answered with that one; one far from all is answered without a suggestion.
func TestTypoSuggestsTheNearest(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	c.ok("append", "--create", "hi")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"veiw"}, `unknown command "veiw"; did you mean view?`},
		{[]string{"tokens", "list"}, `unknown command "tokens"; did you mean token?`},
		{[]string{"help", "serch"}, `unknown command "serch"; did you mean search?`},
		{[]string{"view", "--dsek", "main"}, "view: flag provided but not defined: -dsek; did you mean --desk?"},
		{[]string{"append", "--craete", "hi"}, "append: flag provided but not defined: -craete; did you mean --create?"},
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"view", "--zzz"}, "view: flag provided but not defined: -zzz (see transcript help view)"},
	} {
		r := c.want(exitUsage, tc.args...)
		first, _, _ := strings.Cut(r.stderr, "\n")
		if !strings.Contains(first, tc.want) || strings.Contains(tc.want, "mean") != strings.Contains(first, "did you mean") {
			t.Errorf("transcript %s: %s\nwant it to say %q", strings.Join(tc.args, " "), first, tc.want)
		}
	}
}

// TestMisplacedSuggestsTheCommandNotAFlagsValue: a command line that begins with flags,
// one of whose values is a command's name (the demo's desk is "demo"), is answered with the
// line that runs the command that follows, not the value.
func TestMisplacedSuggestsTheCommandNotAFlagsValue(t *testing.T) {
	t.Parallel()
	code, _, stderr := runInProcess("", "--desk", "demo", "view", "--as", "agent:triage")
	if code != exitUsage || !strings.Contains(stderr, "did you mean transcript view --desk demo --as agent:triage?") {
		t.Errorf("exit %d, want 2 and the line with view first:\n%s", code, stderr)
	}
}
