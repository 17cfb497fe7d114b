package main

import (
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/exportfixture"

	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// mixedFaults is a file with a bad line of each kind, each found at another stage of the
// import: line 2's author (decoding), line 3's NUL byte (what the stores refuse), line 4's
// parent (against the file and the desk), line 6's key (against the file). Line 5 replies
// to line 2, which is reported already; line 7's seq is right only if line 2 counts among
// the rows that would be new.
const mixedFaults = `{"seq":1,"id":"a","author":{"type":"person","id":"ana","label":"Ana"},"content":"one"}
{"seq":2,"id":"b","author":{"type":"robot","id":"r2"},"content":"beep"}
{"seq":3,"author":{"type":"operator"},"content":"a\u0000b"}
{"seq":4,"author":{"type":"operator"},"content":"x","parent":"nope"}
{"seq":5,"author":{"type":"operator"},"content":"a reply to a bad line","parent":"b"}
{"id":"a","author":{"type":"operator"},"content":"again"}
{"seq":7,"author":{"type":"operator"},"content":"fine"}
`

// TestImportReportsEveryKindInOneRun: one run reports a file's bad lines of every kind, each
// with its line number, and only those: not the lines that are bad only because they name a
// bad line, and not the seqs of the lines after a bad one. Nothing is written: into a new
// SQLite file, not even the file.
func TestImportReportsEveryKindInOneRun(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		db := newDB(t)
		c := newCLI(t, db)
		r := c.want(exitError, "import", c.writeFile("bad.jsonl", []byte(mixedFaults)))
		checkReported(t, r, 2, `unknown author type "robot"`)
		checkReported(t, r, 3, `content holds a NUL byte`)
		checkReported(t, r, 4, `parent "nope" names no earlier message of this import and no row of desk "main"`)
		checkReported(t, r, 6, `key "a" is also the key of line 1`)
		for _, good := range []string{"line 1:", "line 5:", "line 7:"} {
			if strings.Contains(r.stderr, good) {
				t.Errorf("%s reported, though it is bad only for naming a bad line, or not at all:\n%s", good, r)
			}
		}
		if !strings.Contains(r.stderr, "4 bad lines, nothing was imported") {
			t.Errorf("want 4 bad lines and nothing imported:\n%s", r)
		}
		if !strings.Contains(db, "://") {
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("a failed import created the SQLite file %s (%v)", db, err)
			}
		}

		// Into a desk with rows, from a file and from standard input: the parent is judged
		// against the desk, and the desk does not change.
		c.ok("import", c.writeFile("desk.jsonl", []byte(flowDesk)))
		before := c.ok("export")
		bad := strings.Replace(mixedFaults, `"parent":"nope"`, `"parent":"deploy"`, 1)
		bad = regexp.MustCompile(`"seq":\d+,`).ReplaceAllString(bad, "") // the desk's seqs are other rows
		for _, r := range []result{
			c.run("import", c.writeFile("bad2.jsonl", []byte(bad))),
			c.runIn(bad, "import", "-"),
		} {
			if r.code != exitError {
				t.Fatalf("want exit 1:\n%s", r)
			}
			checkReported(t, r, 2, `unknown author type "robot"`)
			checkReported(t, r, 3, `content holds a NUL byte`)
			checkReported(t, r, 6, `key "a" is also the key of line 1`)
			if !strings.Contains(r.stderr, "3 bad lines") || strings.Contains(r.stderr, "line 4:") || strings.Contains(r.stderr, "line 5:") {
				t.Errorf("want lines 2, 3 and 6 reported, line 4's parent found in the desk:\n%s", r)
			}
		}
		checkExportUnchanged(t, c, before)
	})
}

// TestImportEveryKindInProcess runs the import of mixedFaults in this process, so that the
// race detector sees the bad lines go through storeRows.
func TestImportEveryKindInProcess(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	code, _, stderr := runInProcess(mixedFaults, "import", "--db", db, "-")
	if code != exitError || !strings.Contains(stderr, "4 bad lines, nothing was imported") {
		t.Errorf("import - of mixedFaults: exit %d\n%s", code, stderr)
	}
}

// checkExportUnchanged fails the test unless c's desk exports as before, after a failed
// import.
func checkExportUnchanged(t *testing.T, c *cli, before string) {
	t.Helper()
	if after := c.ok("export"); after != before {
		t.Errorf("a failed import changed the desk: export before:\n%s\nafter:\n%s", clip(before), clip(after))
	}
}

// TestImportMissingFile: a FILE that does not exist is said so once, plainly, in every
// format.
func TestImportMissingFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{
		{"import", "missing.jsonl"},
		{"import", "--from", "slack", "--channel", "general", "missing.jsonl"},
		{"import", "--from", "discord", "missing.jsonl"},
	} {
		r := c.want(exitError, args...)
		if want := "transcript: open missing.jsonl: no such file\n"; r.stderr != want {
			t.Errorf("stderr %q, want %q", r.stderr, want)
		}
	}
	if _, err := os.Stat(c.path(dbflag.Default)); !os.IsNotExist(err) {
		t.Errorf("an import of a missing file created %s (%v)", dbflag.Default, err)
	}
}

// TestImportSkipsByteOrderMark: a UTF-8 byte-order mark at the start of a JSON Lines file,
// of standard input, and of a Slack or Discord export's JSON files is skipped.
func TestImportSkipsByteOrderMark(t *testing.T) {
	t.Parallel()
	const bom = "\uFEFF"
	c := newCLI(t, "")
	importSays(t, c.run("import", c.writeFile("bom.jsonl", []byte(bom+flowDesk))).stdout, "main", 8, 0)
	importSays(t, c.runIn(bom+flowDesk, "import", "--desk", "stdin", "-").stdout, "stdin", 8, 0)

	slack := exportfixture.Copy(t, "../../importer/testdata/slack/export")
	for _, name := range []string{"users.json", "channels.json", "general/2024-05-01.json"} {
		prependBOM(t, filepath.Join(slack, name))
	}
	if r := c.run("import", "--desk", "slack", "--from", "slack", "--channel", "general", slack); r.code != exitOK || strings.HasPrefix(r.stdout, "imported 0 ") {
		t.Errorf("a Slack export whose files begin with a byte-order mark:\n%s", r)
	}
	discord := exportfixture.Copy(t, "../../importer/testdata/discord/export")
	entries, err := os.ReadDir(discord)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		prependBOM(t, filepath.Join(discord, e.Name()))
	}
	if r := c.run("import", "--desk", "discord", "--from", "discord", discord); r.code != exitOK || strings.HasPrefix(r.stdout, "imported 0 ") {
		t.Errorf("a Discord export whose files begin with a byte-order mark:\n%s", r)
	}
}

// prependBOM writes a UTF-8 byte-order mark at the start of the file name.
func prependBOM(t *testing.T, name string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, name, "\uFEFF"+string(data))
}

// TestImportRecognisesExports: a Slack or a Discord export given to import without --from
// is recognised by what it holds, whatever its name, and the usage error says which flags
// to add; nothing is written.
func TestImportRecognisesExports(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	dir := t.TempDir()
	slackZip := filepath.Join(dir, "workspace.bin")
	exportfixture.Zip(t, slackZip, "../../importer/testdata/slack/export", "export/")
	daysOnly := exportfixture.Copy(t, "../../importer/testdata/slack/export")
	for _, name := range []string{"users.json", "channels.json"} {
		exportfixture.Remove(t, daysOnly, name)
	}
	discordDir := exportfixture.Copy(t, "../../importer/testdata/discord/export")
	discordZip := filepath.Join(dir, "discord.zip")
	exportfixture.Zip(t, discordZip, "../../importer/testdata/discord/export", "")
	discordFile := filepath.Join(dir, "general.jsonl")
	data, err := os.ReadFile("../../importer/testdata/discord/export/Sharedesk - Text Channels - general [1224146209996800042].json")
	if err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, discordFile, string(data))
	oneLine := filepath.Join(dir, "one.jsonl") // DiscordChatExporter's JSON on one line
	exportfixture.WriteFile(t, oneLine, strings.Join(strings.Fields(string(data)), " "))

	slackDir, err := filepath.Abs("../../importer/testdata/slack/export")
	if err != nil {
		t.Fatal(err)
	}
	slackHint := "is a Slack export; add --from slack --channel NAME (its channels: general, random)"
	for _, tc := range []struct{ name, file, want string }{
		{"a Slack folder", slackDir, slackDir + " " + slackHint},
		{"a Slack zip by another name", slackZip, slackZip + " " + slackHint},
		{"a Slack folder without its lists", daysOnly, daysOnly + " is a Slack export; add --from slack --channel NAME"},
		{"a Discord folder", discordDir, discordDir + " is a DiscordChatExporter export; add --from discord"},
		{"a Discord zip", discordZip, discordZip + " is a DiscordChatExporter export; add --from discord"},
		{"a Discord file named .jsonl", discordFile, discordFile + " is a DiscordChatExporter export; add --from discord"},
		{"a Discord file on one line", oneLine, oneLine + " is a DiscordChatExporter export; add --from discord"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cli{t: t, dir: c.dir}
			r := c.want(exitUsage, "import", tc.file)
			if !strings.Contains(r.stderr, "import: "+tc.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("want one line saying %q:\n%s", tc.want, r)
			}
		})
	}
	r := c.runIn(string(data), "import", "-")
	if want := "standard input is a DiscordChatExporter export; save it to a file and add --from discord"; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Errorf("a Discord export on standard input: want exit 2 and %q:\n%s", want, r)
	}
	for _, tc := range []struct{ name, file, want string }{
		{"another folder", t.TempDir(), "is a folder, not a JSON Lines file"},
		{"another zip", filepath.Join(dir, "other.zip"), "is a .zip archive, but neither a Slack nor a Discord export"},
	} {
		if tc.name == "another zip" {
			exportfixture.Zip(t, tc.file, "../../importer/testdata/slack/export/random", "")
		}
		if r := c.run("import", tc.file); r.code != exitUsage || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%s: want exit 2 and %q:\n%s", tc.name, tc.want, r)
		}
	}
	if _, err := os.Stat(c.path(dbflag.Default)); !os.IsNotExist(err) {
		t.Errorf("a refused import created %s (%v)", dbflag.Default, err)
	}
}

// TestImportBadAgainstNewDesk: a file whose lines are each good but wrong together (a parent
// in neither the file nor the desk, a key twice, an edit of another's row) fails into a
// SQLite file that does not exist yet without creating it.
func TestImportBadAgainstNewDesk(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "new.db")
	c := newCLI(t, db)
	r := c.want(exitError, "import", c.writeFile("bad.jsonl", []byte(`{"id":"a","author":{"type":"operator"},"content":"hi"}
{"id":"b","author":{"type":"operator"},"content":"re","parent":"nope"}
{"id":"a","author":{"type":"operator"},"content":"again"}
`)))
	checkReported(t, r, 2, `parent "nope" names no earlier message of this import and no row of desk "main"`)
	checkReported(t, r, 3, `key "a" is also the key of line 1`)
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the failed import created the SQLite file %s (%v)", db, err)
	}
	r = c.want(exitError, "import", c.writeFile("edit.jsonl", []byte(`{"id":"a","author":{"type":"person","id":"ana"},"content":"hi"}
{"id":"b","author":{"type":"person","id":"bob"},"content":"changed","corrects":"a"}
`)))
	if !strings.Contains(r.stderr, "line 2: only the author of row 1 may edit it (nothing was imported)") {
		t.Errorf("an edit by another is not reported as the store refuses it:\n%s", r)
	}
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("the import the store's rules refuse created the SQLite file %s (%v)", db, err)
	}
}

// TestImportBadIntoEmptyFile: an import into a SQLite file of no bytes (which import
// creates a store in) that fails, for a line bad alone or one bad against the desk, leaves
// the file as it was, as it leaves a file that does not exist yet.
func TestImportBadIntoEmptyFile(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, line string }{
		{"bad against the desk", `{"author":{"type":"operator"},"content":"x","parent":"nope"}`},
		{"bad alone", `{"author":{"type":"operator"},"content":"x"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := newCLI(t, "")
			c.db = c.writeFile("empty.db", nil)
			c.want(exitError, "import", c.writeFile("bad.jsonl", []byte(tt.line+"\n")))
			info, err := os.Stat(c.db)
			if err != nil {
				t.Fatal(err)
			}
			if info.Size() != 0 {
				t.Errorf("the failed import turned the empty file into %d bytes; want it left empty", info.Size())
			}
		})
	}
}
