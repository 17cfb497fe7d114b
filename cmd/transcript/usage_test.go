package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestUsageErrors: a command line that cannot run exits 2, says why on standard error, and
// writes nothing to standard output (which may be piped into a model or a JSON parser) and
// no database.
func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		args   []string
		stderr string // what standard error must hold
	}{
		{"no command", nil, "Usage:"},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"help for an unknown command", []string{"help", "frobnicate"}, `unknown command "frobnicate"`},
		{"unknown flag", []string{"view", "--bogus"}, "-bogus"},
		{"a flag before the command", []string{"--db", "x.db", "view"}, "did you mean transcript view --db x.db?"},
		{"an unknown flag alone", []string{"--bogus"}, `unknown command "--bogus"`},
		{"bad --as kind", []string{"view", "--as", "robot:r2"}, `"robot:r2" is not agent:ID`},
		{"--as without id", []string{"append", "--as", "agent", "hi"}, `"agent" is not agent:ID`},
		{"--as with an empty id", []string{"append", "--as", "person:", "hi"}, `"person:" is not`},
		{"--as system without kind", []string{"view", "--as", "system"}, `"system" is not`},
		{"bad --format", []string{"view", "--format", "xml"}, `--format "xml"`},
		{"bad --format for delta", []string{"delta", "--state", "s.json", "--format", "yaml"}, `--format "yaml"`},
		{"bad --thread", []string{"view", "--thread", "-1"}, "-thread"},
		{"bad --window", []string{"view", "--window", "many"}, "-window"},
		{"bad --parent", []string{"append", "--parent", "x", "hi"}, "-parent"},
		{"bad --to kind", []string{"append", "--to", "robot:r2", "hi"}, `"robot:r2" is not agent:ID`},
		{"--to without id", []string{"append", "--to", "agent:triage,person", "hi"}, `"person" is not agent:ID`},
		{"--to with an empty entry", []string{"append", "--to", "agent:x,,agent:y", "hi"}, "empty entry"},
		{"--to empty", []string{"append", "--to", "", "hi"}, "empty entry"},
		{"--to with a trailing comma", []string{"append", "--to", "agent:x,", "hi"}, "empty entry"},
		{"--to listing one twice", []string{"append", "--to", "agent:x,agent:x:X", "hi"}, "agent:x is listed twice"},
		{"--to given twice for one", []string{"append", "--to", "agent:x", "--to", "person:ana,agent:x", "hi"}, "agent:x is listed twice"},
		{"--to naming the author", []string{"append", "--as", "agent:x:X", "--to", "person:ana,agent:x", "hi"}, "usage: append --to: audience entry 1 (agent:x) is the author itself\n"},
		{"--to naming the default author", []string{"append", "--to", "operator:Olga", "hi"}, "audience entry 0 (operator) is the author itself"},
		{"--to over the limit", []string{"append", "--to", manyParticipants(transcript.MaxAudience + 1), "hi"}, "17 entries, over the limit of 16"},
		{"view with arguments", []string{"view", "extra"}, "view takes no arguments"},
		{"export with arguments", []string{"export", "extra"}, "export takes no arguments"},
		{"demo with arguments", []string{"demo", "extra"}, "demo takes no arguments"},
		{"import without a file", []string{"import"}, "import takes one FILE"},
		{"import with two files", []string{"import", "a", "b"}, "import takes one FILE"},
		{"delta without --state", []string{"delta"}, "--state"},
		{"delta with arguments", []string{"delta", "--state", "s.json", "extra"}, "delta takes no arguments"},
		{"compact with arguments", []string{"compact", "extra"}, "compact takes no arguments"},
		{"search without words", []string{"search"}, "search takes the WORDS to find"},
		{"search with 17 words", append([]string{"search"}, distinctWords(transcript.MaxSearchTerms+1)...), "search: the text holds 17 words, above the limit of 16"},
		{"search with an unknown flag after the words", []string{"search", "deploy", "--bogus"}, "search: flag provided but not defined: -bogus"},
		{"search with a bad --as", []string{"search", "--as", "robot:r2", "deploy"}, `"robot:r2" is not agent:ID`},
		{"search with a bad --format", []string{"search", "--format", "xml", "deploy"}, `--format "xml"`},
		{"search with a bad --limit", []string{"search", "--limit", "many", "deploy"}, "-limit"},
		{"search with a bad --before", []string{"search", "--before", "-2", "deploy"}, "-before"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, "")
			r := c.run(tc.args...)
			if r.code != exitUsage {
				t.Errorf("want exit 2, got:\n%s", r)
			}
			if !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("standard error does not say %q:\n%s", tc.stderr, r)
			}
			if r.stdout != "" {
				t.Errorf("a usage error wrote to standard output (help belongs on standard error unless asked for):\n%s", r)
			}
			if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
				t.Errorf("a usage error left files: %v", entries)
			}
		})
	}
}

// manyParticipants returns n distinct agents in --to's syntax.
func manyParticipants(n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf("agent:a%d", i)
	}
	return strings.Join(names, ",")
}

// distinctWords returns n different words.
func distinctWords(n int) []string {
	words := make([]string, n)
	for i := range words {
		words[i] = fmt.Sprintf("word%d", i)
	}
	return words
}

// commandFlags are the flags each command documents.
var commandFlags = map[string][]string{
	"demo":    {"-db", "-desk", "-window"},
	"import":  {"-db", "-desk"},
	"export":  {"-db", "-desk"},
	"append":  {"-db", "-desk", "-as", "-parent", "-to"},
	"view":    {"-db", "-desk", "-as", "-thread", "-before", "-window", "-format", "-digest"},
	"digest":  {"-db", "-desk", "-thread", "-digester", "-model", "-base-url", "-digest-timeout", "-format"},
	"delta":   {"-db", "-desk", "-as", "-state", "-thread", "-before", "-format", "-commit", "-init"},
	"search":  {"-db", "-desk", "-read-db", "-as", "-thread", "-before", "-limit", "-format"},
	"compact": {"-db"},
}

// TestHelp: help, help COMMAND and COMMAND -h exit 0 and print to standard output.
func TestHelp(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}} {
		r := c.want(exitOK, args...)
		for name := range commandFlags {
			if !strings.Contains(r.stdout, "  "+name+" ") {
				t.Errorf("%v does not list %s:\n%s", args, name, r)
			}
		}
		if !strings.Contains(r.stdout, "Exit codes") || !strings.Contains(r.stdout, "--db") {
			t.Errorf("%v does not document exit codes and --db:\n%s", args, r)
		}
	}
	for name, flags := range commandFlags {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t, "")
			for _, args := range [][]string{{"help", name}, {name, "-h"}, {name, "--help"}} {
				r := c.want(exitOK, args...)
				if n := strings.Count(r.stdout, "Usage: transcript "+name); n != 1 {
					t.Errorf("%v shows the command's usage %d times, want once:\n%s", args, n, r)
				}
				if r.stderr != "" {
					t.Errorf("%v wrote to standard error:\n%s", args, r)
				}
				for _, f := range flags {
					if !strings.Contains(r.stdout, "  "+f+" ") && !strings.Contains(r.stdout, "  "+f+"\n") {
						t.Errorf("%v does not document %s:\n%s", args, f, r)
					}
				}
			}
			if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
				t.Errorf("help left files: %v", entries)
			}
		})
	}
	if entries, _ := os.ReadDir(c.dir); len(entries) != 0 {
		t.Errorf("help left files: %v", entries)
	}
}

// TestErrors: a command that fails exits 1 with the reason on standard error.
func TestErrors(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("append", "--create", "hello")
		c.ok("append", "world")
		c.ok("delta", "--state", c.path("s.json"), "--commit") // watermark 2
		for _, tc := range []struct {
			args   []string
			stderr string
		}{
			{[]string{"append", "--parent", "7", "reply to nothing"}, "reply to row 7 of desk \"main\": no such row"},
			{[]string{"import", c.path("missing.jsonl")}, "missing.jsonl"},
			{[]string{"delta", "--state", c.path("no/such/dir/s.json"), "--commit"}, "state"},
			{[]string{"delta", "--state", c.path("s.json"), "--before", "1"}, "watermark"},
			{[]string{"delta", "--state", c.writeFile("junk.json", []byte("not a state"))}, "junk.json"},
		} {
			r := c.run(tc.args...)
			if r.code != exitError || !strings.Contains(r.stderr, tc.stderr) {
				t.Errorf("want exit 1 and %q on standard error, got:\n%s", tc.stderr, r)
			}
		}
		if got := c.ok("export"); strings.Count(got, "\n") != 2 {
			t.Errorf("failed commands changed the desk:\n%s", got)
		}
	})
	t.Run("sqlite file in a missing directory", func(t *testing.T) {
		t.Parallel()
		c := newCLI(t, "")
		r := c.run("view", "--db", c.path("no/such/dir/x.db"))
		if r.code != exitError || r.stderr == "" {
			t.Errorf("want exit 1 and a reason, got:\n%s", r)
		}
	})
}
