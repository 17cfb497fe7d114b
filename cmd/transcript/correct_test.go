package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
)

// erasedWords are what the desk of TestEditRedact held before a redaction erased it: no
// output of any command may show them afterwards.
var erasedWords = []string{"deploy at 22:00", "deploy at 23:00", "deploy at 23:30"}

// asideWords are what Triage's aside to Ana holds, edited or not: no one else's output, and
// no refusal, may show them.
var asideWords = []string{"SECRET-ASIDE", "hunter2"}

// TestEditRedact edits and redacts rows through the commands: the store applies each
// correction to its row, which view shows revised; its refusals exit 1 naming the row by its
// seq only (a row the participant may not read answered as a missing one), and write
// nothing; after a redaction, no export, view, delta, search or error holds the erased
// content, and search finds an edited row by its new words only.
func TestEditRedact(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		seqOf := func(want string, args ...string) {
			t.Helper()
			if got := c.ok(args...); got != want+"\n" {
				t.Fatalf("%v printed %q, want its seq %s", args, got, want)
			}
		}
		seqOf("1", "append", "--create", "--as", "person:ana:Ana", "deploy at 22:00")
		seqOf("2", "append", "--as", "agent:triage:Triage", "--to", "person:ana", "SECRET-ASIDE: the token is hunter2")
		seqOf("3", "append", "--as", "person:ben:Ben", "build running")
		seqOf("4", "edit", "--as", "person:ana", "1", "deploy", "at", "23:00")
		seqOf("5", "edit", "1", "--as", "person:ana", "--", "deploy at 23:30") // flags after SEQ, text after --
		if r := c.runIn("build green\n", "edit", "--as", "person:ben", "3"); r.code != 0 || r.stdout != "6\n" {
			t.Fatalf("edit from standard input: %s", r)
		}
		seqOf("7", "edit", "--as", "agent:triage", "2", "SECRET-ASIDE: the token is in the vault")

		p := decode[projectionJSON](t, "view", c.ok("view", "--format", "json"))
		wantSeqs(t, "the operator's channel", p.Messages, []transcript.Sequence{1, 2, 3})
		for i, want := range []struct {
			content string
			revised transcript.Sequence
		}{{"deploy at 23:30", 5}, {"SECRET-ASIDE: the token is in the vault", 7}, {"build green", 6}} {
			if m := p.Messages[i]; m.Content != want.content || m.Revised != want.revised || m.Redacted {
				t.Errorf("row %d: content %q, revised %d, redacted %v; want %q, revised %d", m.Seq, m.Content, m.Revised, m.Redacted, want.content, want.revised)
			}
		}

		before := c.ok("export")
		refusals := []struct {
			name   string
			args   []string
			stderr string
		}{
			{"an edit by another than the author", []string{"edit", "--as", "person:ben", "1", "mine now"},
				"transcript: edit row 1 of desk \"main\": only its author may edit it, not person:ben\n"},
			{"an edit by the operator", []string{"edit", "1", "the operator's words"},
				"transcript: edit row 1 of desk \"main\": only its author may edit it, not operator\n"},
			{"a redaction by another than the author", []string{"redact", "--as", "person:ben", "1"},
				"transcript: redact row 1 of desk \"main\": only its author or the operator may redact it, not person:ben\n"},
			{"an edit of an aside the editor may not read", []string{"edit", "--as", "person:ben", "2", "x"},
				"transcript: edit row 2 of desk \"main\": no such row that person:ben may read\n"},
			{"an edit of a missing row", []string{"edit", "--as", "person:ben", "99", "x"},
				"transcript: edit row 99 of desk \"main\": no such row that person:ben may read\n"},
			{"a redaction of an aside the redactor may not read", []string{"redact", "--as", "person:ben", "2"},
				"transcript: redact row 2 of desk \"main\": no such row that person:ben may read\n"},
			{"a redaction of a missing row", []string{"redact", "--as", "person:ben", "99"},
				"transcript: redact row 99 of desk \"main\": no such row that person:ben may read\n"},
			{"an edit of a correction", []string{"edit", "--as", "person:ana", "4", "x"}, "transcript: edit row 4 of desk \"main\": it is a correction; edit the row it corrects (#1)\n"},
			{"an edit on another desk", []string{"edit", "--desk", "nope", "--as", "person:ana", "1", "x"}, ""},
		}
		for _, tc := range refusals {
			r := c.run(tc.args...)
			switch {
			case r.code != exitError || r.stdout != "":
				t.Errorf("%s: want exit 1 and no output, got:\n%s", tc.name, r)
			case tc.stderr != "" && r.stderr != tc.stderr:
				t.Errorf("%s: stderr %q, want %q", tc.name, r.stderr, tc.stderr)
			}
			checkHoldsNone(t, tc.name, r.stderr, asideWords)
			checkHoldsNone(t, tc.name, r.stderr, []string{"deploy", "build"})
		}
		if after := c.ok("export"); after != before {
			t.Errorf("refused corrections changed the desk (-before +after):\n%s", cmp.Diff(before, after))
		}

		// Ben, who was shown row 1, holds a state from before its redaction.
		state := c.path("ben.json")
		c.ok("delta", "--as", "person:ben", "--state", state, "--init", "--commit")
		viewers := []string{"operator", "person:ana", "person:ben", "agent:triage"}
		for _, as := range viewers { // and each viewer a state of its own from then
			c.ok("delta", "--as", as, "--state", c.path(as+"-since.json"), "--init", "--commit")
		}
		seqOf("8", "redact", "1")
		for _, tc := range []struct {
			name   string
			args   []string
			stderr string
		}{
			{"an edit of a redacted row", []string{"edit", "--as", "person:ana", "1", "deploy at 22:00"},
				"transcript: edit row 1 of desk \"main\": it was redacted: its content is erased, and it takes no more corrections\n"},
			{"a second redaction", []string{"redact", "--as", "person:ana", "1"},
				"transcript: redact row 1 of desk \"main\": it was redacted: its content is erased, and it takes no more corrections\n"},
		} {
			if r := c.run(tc.args...); r.code != exitError || r.stderr != tc.stderr {
				t.Errorf("%s: want exit 1 and %q, got:\n%s", tc.name, tc.stderr, r)
			}
		}
		d := decode[deltaJSON](t, "delta after the redaction", c.ok("delta", "--as", "person:ben", "--state", state, "--format", "json"))
		if len(d.Corrections) != 1 || d.Corrections[0].Seq != 8 || !d.Corrections[0].Redacted || d.Corrections[0].Corrects != 1 {
			t.Errorf("Ben's delta after the redaction: corrections %+v, want the redaction #8 of #1", d.Corrections)
		}

		// The erasure: no output of any command holds what the redaction erased.
		outputs := map[string]string{"export": c.ok("export")}
		for _, as := range viewers {
			for _, format := range formats {
				outputs["view "+as+" "+format] = c.ok("view", "--as", as, "--format", format)
				outputs["view thread "+as+" "+format] = c.ok("view", "--as", as, "--thread", "1", "--format", format)
				outputs["delta "+as+" "+format] = c.ok("delta", "--as", as, "--state", c.path(as+format+".json"), "--format", format)
				outputs["delta since "+as+" "+format] = c.ok("delta", "--as", as, "--state", c.path(as+"-since.json"), "--format", format)
				for _, words := range []string{"deploy", "22", "23", "30", "hunter2", "vault"} {
					outputs["search "+words+" "+as+" "+format] = c.ok("search", "--as", as, "--format", format, words)
				}
			}
		}
		// Search finds an edited row by its new words only, and an erased row by none.
		for _, tc := range []struct {
			as, words string
			want      []transcript.Sequence
		}{
			{"operator", "deploy", nil}, {"person:ana", "deploy 23", nil}, {"operator", "22", nil},
			{"person:ana", "hunter2", nil}, {"person:ana", "token vault", []transcript.Sequence{2}}, {"person:ben", "vault", nil},
			{"person:ben", "running", nil}, {"person:ben", "build green", []transcript.Sequence{3}},
		} {
			got := decode[searchJSONOut](t, "search", c.ok("search", "--as", tc.as, "--format", "json", tc.words))
			wantSeqs(t, "search "+tc.words+" as "+tc.as+" after the corrections", got.Messages, tc.want)
		}
		for what, out := range outputs {
			checkHoldsNone(t, what, out, erasedWords)
			if strings.Contains(what, " person:ben ") || strings.HasPrefix(what, "delta since") {
				checkHoldsNone(t, what, out, asideWords)
			}
		}
		if !strings.Contains(outputs["export"], `"seq":1,"author":{"type":"person","id":"ana","label":"Ana"},"content":"","at":`) ||
			!strings.Contains(outputs["export"], `"redacted":true,"revised":8}`) {
			t.Errorf("export does not show row 1 erased:\n%s", outputs["export"])
		}

		// Usage errors: nothing is opened.
		for _, args := range [][]string{
			{"edit"}, {"edit", "1"}, {"redact"}, {"redact", "1", "2"}, {"edit", "0", "x"}, {"edit", "one", "x"}, {"redact", "-3"},
			{"edit", "--as", "person:ana", "1", "   "},
		} {
			if r := c.runIn(" ", args...); r.code != exitUsage {
				t.Errorf("%v: want exit %d, got:\n%s", args, exitUsage, r)
			}
		}
	})
}

// checkHoldsNone fails the test when out holds one of words.
func checkHoldsNone(t *testing.T, what, out string, words []string) {
	t.Helper()
	for _, w := range words {
		if strings.Contains(out, w) {
			t.Errorf("%s holds %q:\n%s", what, w, out)
		}
	}
}

// TestExportImportCorrections: an export of a desk with edits, a redaction of a row with
// earlier edits and an aside's edit imports into an empty desk, of the same database or
// another, as exactly the rows stored, and into its own desk as nothing new.
func TestExportImportCorrections(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("append", "--create", "--as", "person:ana:Ana", "deploy at 22:00")
		c.ok("append", "--as", "agent:triage", "--to", "person:ana", "SECRET-ASIDE: hold it")
		c.ok("edit", "--as", "person:ana", "1", "deploy at 23:00")
		c.ok("edit", "--as", "person:ana", "1", "deploy at 23:30")
		c.ok("append", "--as", "person:ben", "--parent", "1", "noted")
		c.ok("redact", "1")
		c.ok("edit", "--as", "agent:triage", "2", "SECRET-ASIDE: go")
		first := c.ok("export")
		checkHoldsNone(t, "export", first, erasedWords)
		if n := strings.Count(first, `"redacted":true`); n != 4 {
			t.Errorf("export holds %d erased rows, want 4 (the row, its two edits, the redaction):\n%s", n, first)
		}
		in := c.writeFile("export.jsonl", []byte(first))
		importSays(t, c.ok("import", "--desk", "copy", in), "copy", 7, 0)
		if diff := cmp.Diff(first, c.ok("export", "--desk", "copy")); diff != "" {
			t.Errorf("export of the restored desk (-first +second):\n%s", diff)
		}
		importSays(t, c.ok("import", in), "main", 0, 7)
		if diff := cmp.Diff(first, c.ok("export")); diff != "" {
			t.Errorf("a re-import changed the desk (-first +second):\n%s", diff)
		}
		other := newCLI(t, newDB(t))
		other.ok("import", other.writeFile("export.jsonl", []byte(first)))
		if diff := cmp.Diff(first, other.ok("export")); diff != "" {
			t.Errorf("export from another database (-first +second):\n%s", diff)
		}
	})
}

// TestImportChatExportEdits: a Slack and a Discord export re-imported after a message was
// edited add one edit row and nothing else, a third import nothing, and the older export
// again nothing either: its older text is not put back. Imported newer first, then older,
// the newer text stays too.
func TestImportChatExportEdits(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		for _, tc := range []struct {
			from, before string
			args         []string
		}{
			{"slack", "../../importer/testdata/slack/export", []string{"--from", "slack", "--channel", "general"}},
			{"discord", "../../importer/testdata/discord/export", []string{"--from", "discord"}},
		} {
			t.Run(tc.from, func(t *testing.T) {
				c := newCLI(t, newDB(t))
				before, err := filepath.Abs(tc.before) // the command runs in c's directory
				if err != nil {
					t.Fatal(err)
				}
				after := editedChatExport(t, tc.from, before)
				imp := func(path string) string {
					return c.ok(append(append([]string{"import", "--desk", "eng"}, tc.args...), path)...)
				}
				out := imp(before)
				var n int
				if _, err := fmt.Sscanf(out, "imported %d new messages", &n); err != nil {
					t.Fatalf("import printed %q", out)
				}
				rows := strings.Count(c.ok("export", "--desk", "eng"), "\n")
				if got, want := imp(after), fmt.Sprintf("imported 0 new messages and 1 edit into desk \"eng\" (%d already present)\n", n); got != want {
					t.Errorf("import after the edit printed %q, want %q", got, want)
				}
				now := c.ok("export", "--desk", "eng")
				if got := strings.Count(now, "\n"); got != rows+1 {
					t.Errorf("the desk holds %d rows, want %d: the edit alone\n%s", got, rows+1, now)
				}
				if !strings.Contains(now, "Standup moved to 11:00") || !strings.Contains(now, `"corrects_seq":`) {
					t.Errorf("the desk holds no edit:\n%s", now)
				}
				importSays(t, imp(after), "eng", 0, n)
				if again := c.ok("export", "--desk", "eng"); again != now {
					t.Errorf("a third import changed the desk (-second +third):\n%s", cmp.Diff(now, again))
				}
				importSays(t, imp(before), "eng", 0, n)
				if again := c.ok("export", "--desk", "eng"); again != now {
					t.Errorf("the older export again changed the desk (-before +after):\n%s", cmp.Diff(now, again))
				}

				fresh := newCLI(t, newDB(t))
				freshImp := func(path string) string {
					return fresh.ok(append(append([]string{"import", "--desk", "eng"}, tc.args...), path)...)
				}
				importSays(t, freshImp(after), "eng", n, 0)
				newer := fresh.ok("export", "--desk", "eng")
				importSays(t, freshImp(before), "eng", 0, n)
				if again := fresh.ok("export", "--desk", "eng"); again != newer || !strings.Contains(again, "Standup moved to 11:00") {
					t.Errorf("the older export after the newer changed the desk (-before +after):\n%s", cmp.Diff(newer, again))
				}
			})
		}
	})
}

// editedChatExport returns a copy of the Slack or Discord export dir in which the fixture's
// edited message was edited again, to "Standup moved to 11:00".
func editedChatExport(t *testing.T, from, dir string) string {
	t.Helper()
	out := exportfixture.Copy(t, dir)
	var file string
	var edit func(m map[string]any)
	switch from {
	case "slack":
		file = filepath.Join(out, "general", "2024-05-01.json")
		edit = func(m map[string]any) {
			if m["ts"] == "1714554480.000900" {
				m["text"] = "Standup moved to 11:00"
				m["edited"] = map[string]any{"user": "U02BEN", "ts": "1714560000.000000"}
			}
		}
	default:
		file = filepath.Join(out, "Sharedesk - Text Channels - general [1224146209996800042].json")
		edit = func(m map[string]any) {
			if m["id"] == "1235155503022080017" {
				m["content"] = "Standup moved to 11:00."
				m["timestampEdited"] = "2024-05-01T12:30:00.5+02:00"
			}
		}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	msgs, ok := v.([]any) // a Slack day file
	if !ok {
		msgs = v.(map[string]any)["messages"].([]any)
	}
	for _, m := range msgs {
		edit(m.(map[string]any))
	}
	if data, err = json.Marshal(v); err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, file, string(data))
	return out
}

// TestCorrectionHelpExampleRuns: the example edit's and redact's help end with runs as
// printed, line by line, in a directory with no database, each line printing the seq its
// comment says.
func TestCorrectionHelpExampleRuns(t *testing.T) {
	t.Parallel()
	for _, command := range []string{"edit", "redact"} {
		c := newCLI(t, "")
		help := c.ok(command, "--help")
		_, example, ok := strings.Cut(help, "For example:\n")
		if !ok {
			t.Fatalf("%s --help has no example:\n%s", command, help)
		}
		n := 0
		for line := range strings.Lines(example) {
			code, comment, _ := strings.Cut(strings.TrimSpace(line), "#")
			args, ok := shellWords(strings.TrimSpace(code))
			if !ok || len(args) == 0 || args[0] != "transcript" {
				continue
			}
			n++
			var want string
			if _, err := fmt.Sscanf(strings.TrimSpace(comment), "prints %s", &want); err != nil {
				t.Fatalf("%s --help: %q says not what it prints", command, line)
			}
			want = strings.TrimSuffix(want, ":")
			if r := c.run(args[1:]...); r.code != 0 || r.stdout != want+"\n" {
				t.Errorf("%s --help's example: %s: want it to print %s, got:\n%s", command, strings.TrimSpace(code), want, r)
			}
		}
		if n != 3 {
			t.Errorf("%s --help's example has %d commands, want 3:\n%s", command, n, example)
		}
	}
}

// shellWords splits line into words as a shell does for words in double quotes and
// without: false when it holds anything else a shell would read otherwise.
func shellWords(line string) ([]string, bool) {
	var words []string
	for line != "" {
		line = strings.TrimLeft(line, " ")
		if line == "" {
			break
		}
		if line[0] == '"' {
			word, rest, ok := strings.Cut(line[1:], `"`)
			if !ok || strings.ContainsAny(word, "$`\\") {
				return nil, false
			}
			words, line = append(words, word), rest
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		if strings.ContainsAny(word, "'\"$`\\;&|<>()*?") {
			return nil, false
		}
		words, line = append(words, word), rest
	}
	return words, true
}
