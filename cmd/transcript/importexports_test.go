package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
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
