package cliflag_test

import (
	"errors"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/sharedesk/transcript/internal/cliflag"
)

// TestParse: flags before, between and after the positional arguments are flags; "--" ends
// them unless it is a flag's value; an unknown flag after the text is an error naming it.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		args []string
		desk string
		to   bool
		want []string
		err  string
	}{
		{args: []string{"--desk", "eng", "hi", "there"}, desk: "eng", want: []string{"hi", "there"}},
		{args: []string{"hi", "--desk", "eng", "there", "--to"}, desk: "eng", to: true, want: []string{"hi", "there"}},
		{args: []string{"hi", "--", "--desk", "x", "-5"}, desk: "main", want: []string{"hi", "--desk", "x", "-5"}},
		{args: []string{"--desk", "--", "hi"}, desk: "--", want: []string{"hi"}},
		{args: []string{"--to", "--", "-5"}, desk: "main", to: true, want: []string{"-5"}},
		{args: []string{"hi", "--nope"}, err: "flag provided but not defined: -nope"},
	} {
		fs := cliflag.NewFlagSet(&strings.Builder{}, "transcript", "append", "[TEXT...]", "")
		desk := fs.String("desk", "main", "")
		to := fs.Bool("to", false, "")
		err := cliflag.Parse(fs, c.args)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("Parse(%q) = %v, want %q", c.args, err, c.err)
			}
		case err != nil || *desk != c.desk || *to != c.to || !slices.Equal(fs.Args(), c.want):
			t.Errorf("Parse(%q) = %v: desk %q, to %v, args %q; want desk %q, to %v, args %q", c.args, err, *desk, *to, fs.Args(), c.desk, c.to, c.want)
		}
	}
}

// TestHelp: -h prints the help once, to the writer the flag set was made with, and is
// flag.ErrHelp; a bad flag prints nothing.
func TestHelp(t *testing.T) {
	var out strings.Builder
	fs := cliflag.NewFlagSet(&out, "transcript", "view", "[flags]", "\nShow a view.\n")
	fs.String("desk", "main", "the `desk`'s name")
	if err := cliflag.Parse(fs, []string{"x", "-h"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("Parse(-h) = %v, want flag.ErrHelp", err)
	}
	want := "Usage: transcript view [flags]\n\nShow a view.\n\nFlags:\n  -desk desk\n    \tthe desk's name (default \"main\")\n"
	if out.String() != want {
		t.Errorf("help:\n%q\nwant\n%q", out.String(), want)
	}
	out.Reset()
	if err := cliflag.Parse(fs, []string{"--nope"}); err == nil || out.Len() != 0 {
		t.Errorf("Parse(--nope) = %v, printing %q; want an error and nothing printed", err, out.String())
	}
}

// TestSetFromEnv: the variable sets a flag the command line did not give, never one it
// gave, nor a flag set without it; the default the help shows is left as it was.
func TestSetFromEnv(t *testing.T) {
	t.Setenv("CLIFLAG_TEST_DB", "postgres://u:secret@host/db")
	for _, c := range []struct {
		args []string
		name string
		set  bool
		want string
	}{
		{nil, "db", true, "postgres://u:secret@host/db"},
		{[]string{"--db", "x.db"}, "db", false, "x.db"},
		{nil, "nope", false, "transcript.db"},
	} {
		fs := cliflag.NewFlagSet(&strings.Builder{}, "transcript", "view", "", "")
		db := fs.String("db", "transcript.db", "")
		if err := cliflag.Parse(fs, c.args); err != nil {
			t.Fatal(err)
		}
		set, err := cliflag.SetFromEnv(fs, c.name, "CLIFLAG_TEST_DB")
		if err != nil || set != c.set || *db != c.want || fs.Lookup("db").DefValue != "transcript.db" {
			t.Errorf("SetFromEnv after %q, flag %s = %v, %v: --db %q (default %q); want %v, %q", c.args, c.name, set, err, *db, fs.Lookup("db").DefValue, c.set, c.want)
		}
	}
	t.Setenv("CLIFLAG_TEST_DB", "")
	fs := cliflag.NewFlagSet(&strings.Builder{}, "transcript", "view", "", "")
	fs.String("db", "transcript.db", "")
	if set, err := cliflag.SetFromEnv(fs, "db", "CLIFLAG_TEST_DB"); set || err != nil {
		t.Errorf("SetFromEnv of an empty variable = %v, %v; want false, nil", set, err)
	}
}

// TestText: the arguments joined by spaces, else standard input less one final line break;
// a failure to read it names the command.
func TestText(t *testing.T) {
	for _, c := range []struct {
		args  []string
		stdin string
		want  string
	}{
		{[]string{"deploy", "at", "22:00"}, "ignored", "deploy at 22:00"},
		{nil, "from stdin\n\n", "from stdin\n"},
		{[]string{}, "", ""},
	} {
		if got, err := cliflag.Text("append", c.args, strings.NewReader(c.stdin)); err != nil || got != c.want {
			t.Errorf("Text(%q, stdin %q) = %q, %v; want %q", c.args, c.stdin, got, err, c.want)
		}
	}
	broken := iotest.ErrReader(errors.New("broken pipe"))
	if _, err := cliflag.Text("edit", nil, broken); err == nil || err.Error() != "edit: reading standard input: broken pipe" {
		t.Errorf("Text of an unreadable stdin: %v", err)
	}
}

func TestUsagef(t *testing.T) {
	err := cliflag.Usagef("%s takes no arguments", "view")
	if !errors.Is(err, cliflag.ErrUsage) || err.Error() != "usage: view takes no arguments" {
		t.Fatalf("Usagef: %v", err)
	}
}

func TestNoArguments(t *testing.T) {
	number := cliflag.Guess{Flag: "thread", Fits: func(arg string) bool { return arg == "7" }}
	name := cliflag.Guess{Flag: "desk", Fits: func(string) bool { return true }}
	for _, c := range []struct {
		flags []string // the flags the command has
		args  []string
		want  string
	}{
		{[]string{"thread", "desk"}, []string{"7"}, "usage: view takes no arguments; did you mean --thread 7?"},
		{[]string{"desk"}, []string{"7"}, "usage: view takes no arguments; did you mean --desk 7?"},
		{[]string{"thread", "desk"}, []string{"eng"}, "usage: view takes no arguments; did you mean --desk eng?"},
		{nil, []string{"eng"}, "usage: view takes no arguments"},
		{[]string{"thread", "desk"}, []string{"eng", "7"}, "usage: view takes no arguments"},
	} {
		fs := flag.NewFlagSet("view", flag.ContinueOnError)
		for _, f := range c.flags {
			fs.String(f, "", "")
		}
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		if err := cliflag.NoArguments(fs, number, name); !errors.Is(err, cliflag.ErrUsage) || err.Error() != c.want {
			t.Errorf("%v with %v: %v, want %s", c.args, c.flags, err, c.want)
		}
	}
}

func TestMisplaced(t *testing.T) {
	commands := []string{"view", "append"}
	if err := cliflag.Misplaced("transcript", commands, []string{"--db", "x.db", "eng"}); err != nil {
		t.Errorf("no command: %v", err)
	}
	err := cliflag.Misplaced("transcript", commands, []string{"--as", "person:ana", "append", "it's", ""})
	want := `usage: the command comes first, its flags after it: did you mean transcript append --as person:ana "it's" ""?`
	if !errors.Is(err, cliflag.ErrUsage) || err.Error() != want {
		t.Errorf("Misplaced: %v, want %s", err, want)
	}
}

// TestSubcommand: the name comes first, or after help, whose command then runs with -h.
func TestSubcommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		name string
		rest []string
		help bool
	}{
		{nil, "", nil, false},
		{[]string{"add", "--desk", "eng"}, "add", []string{"--desk", "eng"}, false},
		{[]string{"--help"}, "", nil, true},
		{[]string{"help", "token", "add"}, "token", []string{"-h", "add"}, false},
		{[]string{"-h", "add"}, "add", []string{"-h"}, false},
	} {
		name, rest, help := cliflag.Subcommand(tc.args)
		if name != tc.name || !slices.Equal(rest, tc.rest) || help != tc.help {
			t.Errorf("Subcommand(%q) = %q, %q, %v; want %q, %q, %v", tc.args, name, rest, help, tc.name, tc.rest, tc.help)
		}
	}
}

// TestCutWord: the word is found past flags and their values, not past a positional
// argument, a "--" or as a flag's value.
func TestCutWord(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
		ok   bool
	}{
		{[]string{"delete", "eng"}, []string{"eng"}, true},
		{[]string{"--db", "x", "delete", "eng", "--yes"}, []string{"--db", "x", "eng", "--yes"}, true},
		{[]string{"-h", "delete"}, []string{"-h"}, true},
		{[]string{"--db", "delete"}, nil, false},
		{[]string{"eng", "delete"}, nil, false},
		{[]string{"--", "delete"}, nil, false},
		{[]string{"--format", "json"}, nil, false},
	} {
		got, ok := cliflag.CutWord(tc.args, "delete", "db", "format")
		if ok != tc.ok || !slices.Equal(got, tc.want) {
			t.Errorf("CutWord(%q) = %q, %v; want %q, %v", tc.args, got, ok, tc.want, tc.ok)
		}
	}
}

// secret has the shape of a token's secret: no error may quote it back.
const secret = "trs_WmD-O0F3h5mdNXWzjqPg9YQKzYqhjCOF_dMVbErNfUU"

// listValue is a flag of comma-separated entries whose Set, like the audience's, quotes the
// entry it refuses.
type listValue []string

func (l *listValue) String() string { return strings.Join(*l, ",") }
func (l *listValue) Set(s string) error {
	for entry := range strings.SplitSeq(s, ",") {
		if !strings.HasPrefix(entry, "agent:") {
			return fmt.Errorf("%q is not agent:ID", entry)
		}
		*l = append(*l, entry)
	}
	return nil
}

// TestParseQuotesOnlyPlainNames: a bad flag's error quotes its value, and the value's Set's
// error, only when no part of the value could be a secret; otherwise the flag's usage
// stands in. An unknown flag that could be a secret is not named.
func TestParseQuotesOnlyPlainNames(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--window", "many"}, `invalid value "many" for flag -window: want a whole number`},
		{[]string{"--window", secret}, "invalid value for flag -window (not quoted: it could be a secret): want a whole number"},
		{[]string{"--to", "robot"}, `invalid value "robot" for flag -to: "robot" is not agent:ID`},
		{[]string{"--to", "agent:x,robot"}, `invalid value "agent:x,robot" for flag -to: "robot" is not agent:ID`},
		{[]string{"--to", "agent:x,Robot R2"}, `invalid value for flag -to (not quoted: it could be a secret); -to: the participants, agent:ID,...`},
		{[]string{"--to", secret}, "invalid value for flag -to (not quoted: it could be a secret); -to: the participants, agent:ID,..."},
		{[]string{"--to", "agent:x," + secret}, "invalid value for flag -to (not quoted: it could be a secret); -to: the participants, agent:ID,..."},
		{[]string{"hi", "--" + secret}, "flag provided but not defined (not quoted: it could be a secret)"},
		{[]string{"---" + secret}, "bad flag syntax (not quoted: it could be a secret)"},
		{[]string{"---desk"}, "bad flag syntax: ---desk"},
		{[]string{"--window"}, "flag needs an argument: -window"},
	} {
		fs := cliflag.NewFlagSet(&strings.Builder{}, "transcript", "append", "[TEXT...]", "")
		fs.String("desk", "main", "")
		fs.Int("window", 8, "")
		fs.Var(new(listValue), "to", "the `participants`, agent:ID,...")
		err := cliflag.Parse(fs, c.args)
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %q", c.args, err, c.want)
		}
	}
}

// TestParseSaysWhatANumberFlagWants: the flag package's refusal of a number, a duration or
// a boolean, "parse error" alone, says what the flag wants, and the flag's usage; a value
// that is a number is quoted, one that could be a secret is not.
func TestParseSaysWhatANumberFlagWants(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--thread", "abc"}, `invalid value "abc" for flag -thread: want a whole number from 0; -thread: show the thread rooted at this seq`},
		{[]string{"--thread", "-1"}, `invalid value "-1" for flag -thread: want a whole number from 0; -thread: show the thread rooted at this seq`},
		{[]string{"--thread", "99999999999999999999999"}, `invalid value "99999999999999999999999" for flag -thread: want a whole number from 0; -thread: show`},
		{[]string{"--window", "2.5"}, `invalid value "2.5" for flag -window: want a whole number; -window: how many messages to show`},
		{[]string{"--rate", "fast"}, `invalid value "fast" for flag -rate: want a number, such as 10, 0.5 or inf; -rate: the requests a second`},
		{[]string{"--drain", "soon"}, `invalid value "soon" for flag -drain: want a duration, such as 30s, 5m or 1h30m; -drain: how long to wait`},
		{[]string{"--yes=maybe"}, `invalid value "maybe" for flag -yes: want true or false; -yes: delete it`},
		{[]string{"--thread", secret}, "invalid value for flag -thread (not quoted: it could be a secret): want a whole number from 0; -thread: show"},
	} {
		fs := cliflag.NewFlagSet(&strings.Builder{}, "transcript", "view", "", "")
		fs.Uint64("thread", 0, "show the thread rooted at this `seq`")
		fs.Int("window", 8, "how many `messages` to show")
		fs.Float64("rate", 10, "the `requests` a second")
		fs.Duration("drain", time.Second, "how long to wait")
		fs.Bool("yes", false, "delete it")
		if err := cliflag.Parse(fs, c.args); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want %s…", c.args, err, c.want)
		}
	}
}

// TestParseSuggestsTheNearestFlag: an unknown flag near one of the command's is answered
// with it; one far from all, without.
func TestParseSuggestsTheNearestFlag(t *testing.T) {
	for args, want := range map[string]string{
		"--dsek main":    "flag provided but not defined: -dsek; did you mean --desk?",
		"hi -wnidow=3":   "flag provided but not defined: -wnidow; did you mean --window?",
		"--create":       "flag provided but not defined: -create",
		"--desk x --zzz": "flag provided but not defined: -zzz",
	} {
		fs := cliflag.NewFlagSet(&strings.Builder{}, "transcript", "view", "", "")
		fs.String("desk", "main", "")
		fs.Int("window", 8, "")
		fs.Bool("to", false, "")
		if err := cliflag.Parse(fs, strings.Fields(args)); err == nil || err.Error() != want {
			t.Errorf("Parse(%s) = %v, want %q", args, err, want)
		}
	}
}

// TestNearest: a name one or two edits away (a swap of neighbours is one, a change of case
// none) is found; a word as far as its own length, or further than two, is not.
func TestNearest(t *testing.T) {
	names := []string{"view", "token", "desks", "delta", "demo"}
	for word, want := range map[string]string{
		"veiw":   "view",
		"vew":    "view",
		"tokens": "token",
		"desk":   "desks",
		"dleta":  "delta",
		"DEMO":   "demo",
		"Veiw":   "view",
		"view":   "",
		"ls":     "",
		"x":      "",
		"zzzzzz": "",
	} {
		got, ok := cliflag.Nearest(word, names)
		if got != want || ok != (want != "") {
			t.Errorf("Nearest(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}

// TestOneOfSuggestsTheNearest: a value none of the names is a usage error that lists them,
// with the nearest, case aside, when one is near; one that could be a secret is not quoted
// and gets no suggestion.
func TestOneOfSuggestsTheNearest(t *testing.T) {
	formats := []string{"text", "json", "openai", "anthropic"}
	for value, want := range map[string]string{
		"json":   "",
		"opneai": `usage: --format "opneai": want text, json, openai or anthropic; did you mean openai?`,
		"JSON":   `usage: --format "JSON": want text, json, openai or anthropic; did you mean json?`,
		"yaml":   `usage: --format "yaml": want text, json, openai or anthropic`,
		"":       `usage: --format "": want text, json, openai or anthropic`,
		secret:   "usage: --format (not quoted: it could be a secret): want text, json, openai or anthropic",
	} {
		err := cliflag.OneOf("--format", value, formats...)
		switch {
		case want == "" && err != nil:
			t.Errorf("OneOf(%q) = %v, want nil", value, err)
		case want != "" && (!errors.Is(err, cliflag.ErrUsage) || err.Error() != want):
			t.Errorf("OneOf(%q) = %v, want %s", value, err, want)
		}
	}
}

// TestNoArgumentsQuotesOnlyPlainNames: an argument that could be a secret is neither
// quoted nor suggested as a flag's value.
func TestNoArgumentsQuotesOnlyPlainNames(t *testing.T) {
	fs := flag.NewFlagSet("view", flag.ContinueOnError)
	fs.String("desk", "", "")
	if err := fs.Parse([]string{secret}); err != nil {
		t.Fatal(err)
	}
	err := cliflag.NoArguments(fs, cliflag.Guess{Flag: "desk", Fits: func(string) bool { return true }})
	if want := "usage: view takes no arguments (given one, not quoted: it could be a secret)"; err == nil || err.Error() != want {
		t.Errorf("NoArguments(%q) = %v, want %q", "SECRET", err, want)
	}
}

// TestMisplacedSkipsFlagValues: the command is the first command's name that is not the
// value of the flag before it, unless every one is; no secret is shown.
func TestMisplacedSkipsFlagValues(t *testing.T) {
	commands := []string{"view", "demo", "append", "token"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--desk", "demo", "view", "--as", "agent:triage"}, "transcript view --desk demo --as agent:triage"},
		{[]string{"--json", "demo", "view"}, "transcript view --json demo"},
		{[]string{"--desk=demo", "demo", "--as", "x"}, "transcript demo --desk=demo --as x"},
		{[]string{"--create", "append", "hi"}, "transcript append --create hi"},
		{[]string{"--desk", "view", "--as", "x", "view"}, "transcript view --desk view --as x"},
		{[]string{"--db", "postgres://u:hunter2pw@h/db", "view"}, "transcript view --db postgres://u:xxxxx@h/db"},
		{[]string{"--db", "postgres://u@h/db?password=hunter2pw", "view"}, `transcript view --db "postgres://u@h/db?password=xxxxx"`},
		{[]string{"--db", "postgres:/u:hunter2pw@h/db", "view"}, "transcript view --db postgres:/u:xxxxx@h/db"},
		{[]string{"--db", "dbname=x password=hunter2pw", "view"}, `transcript view --db "dbname=x password=xxxxx"`},
		{[]string{"--db=postgres://u:hunter2pw@h/db", "view"}, "transcript view --db=postgres://u:xxxxx@h/db"},
		{[]string{"--desk", "eng", "token", "revoke", secret}, "transcript token --desk eng revoke SECRET"},
	} {
		err := cliflag.Misplaced("transcript", commands, c.args)
		want := "usage: the command comes first, its flags after it: did you mean " + c.want + "?"
		if err == nil || err.Error() != want {
			t.Errorf("Misplaced(%q) = %v, want %s", c.args, err, want)
		}
	}
}
