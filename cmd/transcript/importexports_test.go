package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
)

// importProjection runs view --format json on db's desk for viewer and returns the
// projection.
func importProjection(t *testing.T, db string, args ...string) transcript.Projection {
	t.Helper()
	code, stdout, stderr := runInProcess("", append([]string{"view", "--db", db, "--desk", "eng", "--format", "json", "--window", "100"}, args...)...)
	if code != exitOK {
		t.Fatalf("view %v: exit %d\n%s", args, code, stderr)
	}
	var p transcript.Projection
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("view %v: %v\n%s", args, err, stdout)
	}
	return p
}

// TestImportSlackExport imports the Slack fixture through the command: threads land as
// threads, people and bots as persons and agents, joins and topics as system notices; the
// later export adds only its new messages; and a channel the export lacks writes nothing.
func TestImportSlackExport(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	code, stdout, stderr := runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "--channel", "general", "../../importer/testdata/slack/export")
	if code != exitOK {
		t.Fatalf("import --from slack: exit %d\n%s", code, stderr)
	}
	if strings.HasPrefix(stdout, "imported 0 ") || !strings.Contains(stdout, "(0 already present)") {
		t.Fatalf("import --from slack printed %q", stdout)
	}
	p := importProjection(t, db)
	kinds := map[transcript.AuthorKind]int{}
	var thread transcript.Sequence
	for _, m := range p.Messages {
		kinds[m.Author.Kind]++
		if m.Parent != 0 && thread == 0 {
			thread = m.Parent
		}
	}
	if kinds[transcript.KindPerson] == 0 || kinds[transcript.KindAgent] == 0 || kinds[transcript.KindSystem] == 0 {
		t.Errorf("the channel view's authors by kind: %v; want persons, agents and system notices", kinds)
	}
	if thread == 0 {
		t.Fatal("no thread in the channel view: Slack replies did not become replies")
	}
	replies := importProjection(t, db, "--thread", strconv.FormatUint(uint64(thread), 10))
	if len(replies.Messages) < 2 || replies.Messages[0].Seq != thread {
		t.Errorf("thread %d: %d messages, first %v", thread, len(replies.Messages), replies.Messages)
	}
	for _, m := range replies.Messages[1:] {
		if m.Parent != thread {
			t.Errorf("thread %d holds row %d with parent %d", thread, m.Seq, m.Parent)
		}
	}

	code, stdout, stderr = runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "--channel", "general", "../../importer/testdata/slack/later")
	if code != exitOK || !strings.Contains(stdout, "already present") || strings.HasPrefix(stdout, "imported 0 ") {
		t.Fatalf("import of the later export: exit %d, %q\n%s", code, stdout, stderr)
	}
	code, stdout, _ = runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "--channel", "general", "../../importer/testdata/slack/later")
	if code != exitOK || !strings.HasPrefix(stdout, "imported 0 new messages") {
		t.Errorf("a second import of the later export: exit %d, %q; want nothing new", code, stdout)
	}

	head := importProjection(t, db).Head
	code, _, stderr = runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "--channel", "nope", "../../importer/testdata/slack/export")
	if code == exitOK || !strings.Contains(stderr, "nope") {
		t.Errorf("import of an unknown channel: exit %d\n%s", code, stderr)
	}
	if got := importProjection(t, db).Head; got != head {
		t.Errorf("a refused import moved the head from %d to %d", head, got)
	}
	if code, _, _ := runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "../../importer/testdata/slack/export"); code != exitUsage {
		t.Errorf("--from slack without --channel: exit %d, want %d", code, exitUsage)
	}
}

// TestImportDiscordExport imports the DiscordChatExporter fixture (a channel and a thread
// file) through the command: replies and the thread's messages land as replies, bots as
// agents, and a second import adds nothing.
func TestImportDiscordExport(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	code, stdout, stderr := runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "discord", "../../importer/testdata/discord/export")
	if code != exitOK {
		t.Fatalf("import --from discord: exit %d\n%s", code, stderr)
	}
	p := importProjection(t, db)
	var agents, replies int
	for _, m := range p.Messages {
		if m.Author.Kind == transcript.KindAgent {
			agents++
		}
		if m.Parent != 0 {
			replies++
		}
	}
	if agents == 0 || replies == 0 {
		t.Errorf("the channel view holds %d agents' messages and %d replies; want both:\n%s", agents, replies, stdout)
	}
	code, stdout, _ = runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "discord", "../../importer/testdata/discord/export")
	if code != exitOK || !strings.HasPrefix(stdout, "imported 0 new messages") {
		t.Errorf("a second import: exit %d, %q; want nothing new", code, stdout)
	}
}

// TestImportKeepsUndatedChange: a later Slack export holding a message changed without an
// edit Slack dates (here a bot's update) imports as nothing new, and the command says the
// desk kept its own text of it rather than failing.
func TestImportKeepsUndatedChange(t *testing.T) {
	t.Parallel()
	later := exportfixture.Copy(t, "../../importer/testdata/slack/export")
	day := filepath.Join(later, "general", "2024-05-01.json")
	data, err := os.ReadFile(day)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "Staging deploy finished", "Staging deploy rolled back", 1)
	if changed == string(data) {
		t.Fatal("the fixture holds no staging deploy to change")
	}
	exportfixture.WriteFile(t, day, changed)
	db := filepath.Join(t.TempDir(), "desk.db")
	imp := func(dir string) string {
		t.Helper()
		code, stdout, stderr := runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "--channel", "general", dir)
		if code != exitOK {
			t.Fatalf("import %s: exit %d\n%s", dir, code, stderr)
		}
		return stdout
	}
	imp("../../importer/testdata/slack/export")
	out := imp(later)
	if !strings.HasPrefix(out, "imported 0 new messages") || !strings.Contains(out, "; the desk keeps its own text of 1 message the export changed without an edit time)") {
		t.Errorf("the import of the changed export printed %q", out)
	}
	if view := importProjection(t, db); !strings.Contains(fmt.Sprint(view.Messages), "Staging deploy finished") {
		t.Errorf("the desk lost its own text of the bot's message: %v", view.Messages)
	}
}
