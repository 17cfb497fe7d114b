package main

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
)

// TestImportLaterExportReplies imports, through the command, a Slack and a Discord export
// that hold only a reply to a message an earlier export held: the reply lands in the
// desk's thread; into a desk without that message, the import is refused, naming the
// reply, its parent and what to do, and writes nothing.
func TestImportLaterExportReplies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		from, first, second string
		args                []string
		reply, parent       string
		content             string
	}{
		{"slack", "../../importer/testdata/slack/export", "../../importer/testdata/slack/reply-only",
			[]string{"--from", "slack", "--channel", "general"}, "1714726800.000100", "1714554120.000300", "Shipped. Thanks all."},
		{"discord", "../../importer/testdata/discord/export", "../../importer/testdata/discord/reply-only",
			[]string{"--from", "discord"}, "1235500000000000020", "1235154748047360014", "Production is fine too."},
	} {
		t.Run(tc.from, func(t *testing.T) {
			t.Parallel()
			db := filepath.Join(t.TempDir(), "desk.db")
			imp := func(path string) (int, string, string) {
				return runInProcess("", append(append([]string{"import", "--db", db, "--desk", "eng"}, tc.args...), path)...)
			}
			if code, _, stderr := imp(tc.first); code != exitOK {
				t.Fatalf("import of the first export: exit %d\n%s", code, stderr)
			}
			code, stdout, stderr := imp(tc.second)
			if code != exitOK || !strings.HasPrefix(stdout, "imported 1 new message ") {
				t.Fatalf("import of the later export: exit %d, %q\n%s", code, stdout, stderr)
			}
			code, stdout, stderr = runInProcess("", "export", "--db", db, "--desk", "eng")
			if code != exitOK {
				t.Fatalf("export: exit %d\n%s", code, stderr)
			}
			seqs, parents := map[string]transcript.Sequence{}, map[string]transcript.Sequence{}
			for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
				var l struct {
					Seq       transcript.Sequence `json:"seq"`
					ID        string              `json:"id"`
					ParentSeq transcript.Sequence `json:"parent_seq"`
				}
				if err := json.Unmarshal([]byte(line), &l); err != nil {
					t.Fatal(err)
				}
				seqs[l.ID], parents[l.ID] = l.Seq, l.ParentSeq
			}
			if seqs[tc.parent] == 0 || parents[tc.reply] != seqs[tc.parent] {
				t.Errorf("the reply %s has parent row %d; want %d, the row of %s", tc.reply, parents[tc.reply], seqs[tc.parent], tc.parent)
			}

			empty := filepath.Join(t.TempDir(), "desk.db")
			code, _, stderr = runInProcess("", append(append([]string{"import", "--db", empty, "--desk", "eng"}, tc.args...), tc.second)...)
			if code == exitOK {
				t.Fatal("the later export alone was imported")
			}
			for _, want := range []string{"message " + tc.reply, tc.parent, `in neither the export nor desk "eng"`, "import first an export that holds " + tc.parent} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr %q does not say %q", stderr, want)
				}
			}
			if strings.Contains(stderr, tc.content) {
				t.Errorf("stderr %q quotes the message", stderr)
			}
			if _, err := os.Stat(empty); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("the refused import created %s (%v)", empty, err)
			}
		})
	}
}

// TestImportMentionsAndNotices imports, through the command, a Slack day of mentions and
// links, and a Discord export whose notices have no text: the desk reads them as people do
// in Slack and Discord, the notices as system notices of their kind.
func TestImportMentionsAndNotices(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	code, _, stderr := runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "slack", "--channel", "general", "../../importer/testdata/slack/mentions")
	if code != exitOK {
		t.Fatalf("import --from slack: exit %d\n%s", code, stderr)
	}
	code, stdout, stderr := runInProcess("", "view", "--db", db, "--desk", "eng")
	if code != exitOK {
		t.Fatalf("view: exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"@Ana can you check #random? Notes are in #general.", "@here the plan: release plan (https://example.com/plan?a=1&b=2)", "@channel ping @release-team"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("view does not show %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "<@U") || strings.Contains(stdout, "<!") || strings.Contains(stdout, "&amp;") {
		t.Errorf("view shows Slack's markup:\n%s", stdout)
	}

	// DiscordChatExporter's older versions write a join and a pin without text.
	dir := exportfixture.Copy(t, "../../importer/testdata/discord/export")
	file := filepath.Join(dir, "Sharedesk - Text Channels - general [1224146209996800042].json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var export map[string]any
	if err := json.Unmarshal(data, &export); err != nil {
		t.Fatal(err)
	}
	for _, m := range export["messages"].([]any) {
		if m := m.(map[string]any); m["type"] == "GuildMemberJoin" || m["type"] == "ChannelPinnedMessage" {
			m["content"] = ""
		}
	}
	if data, err = json.Marshal(export); err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, file, string(data))
	db = filepath.Join(t.TempDir(), "desk.db")
	if code, _, stderr := runInProcess("", "import", "--db", db, "--desk", "eng", "--from", "discord", dir); code != exitOK {
		t.Fatalf("import --from discord: exit %d\n%s", code, stderr)
	}
	notices := map[string]string{}
	for _, m := range importProjection(t, db).Messages {
		if m.Author.Kind == transcript.KindSystem {
			notices[m.Author.ID] = m.Content
		}
	}
	if notices["join"] != "Joined the server." || notices["pin"] != "Pinned a message." {
		t.Errorf("the notices by kind: %q; want a join and a pin that read as in Discord", notices)
	}
}
