package importer

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
)

// TestSlackReimportKeepsUndatedChanges: a later Slack export that holds a message changed
// without an edit Slack dates (a file deleted, a bot's message updated, a thread root
// deleted and kept as a tombstone) imports into the desk the earlier one filled: the desk
// keeps its rows as they are, and counts the message as kept.
func TestSlackReimportKeepsUndatedChanges(t *testing.T) {
	for _, tt := range []struct {
		name, day, ts string
		change        func(m map[string]any)
	}{
		{"a file deleted", "general/2024-05-01.json", "1714554420.000800", func(m map[string]any) {
			m["files"] = []any{map[string]any{"id": "F01", "mode": "tombstone"}}
		}},
		{"a bot's update", "general/2024-05-01.json", "1714554240.000500", func(m map[string]any) {
			m["text"] = "Staging deploy failed: build 412 rolled back."
		}},
		{"a thread root deleted", "general/2024-05-02.json", "1714640640.000500", func(m map[string]any) {
			for k := range m {
				if k != "ts" && k != "thread_ts" && k != "reply_count" && k != "replies" && k != "type" {
					delete(m, k)
				}
			}
			m["subtype"], m["user"], m["text"], m["hidden"] = "tombstone", "USLACKBOT", "This message was deleted.", true
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			later := exportfixture.Copy(t, slackFixture)
			editSlackDay(t, later, tt.day, func(msgs []map[string]any) []map[string]any {
				for _, m := range msgs {
					if m["ts"] == tt.ts {
						tt.change(m)
					}
				}
				return msgs
			})
			checkReimportKeeps(t, Slack(slackFixture, "general"), Slack(later, "general"), tt.ts)
		})
	}
}

// TestDiscordReimportKeepsUndatedChanges is TestSlackReimportKeepsUndatedChanges for a
// link's preview (an embed) DiscordChatExporter found on a message after an earlier export.
func TestDiscordReimportKeepsUndatedChanges(t *testing.T) {
	const id = "1235154496389120013"
	later := exportfixture.Copy(t, discordFixture)
	editDiscordFile(t, later, discordChannel, func(x map[string]any) {
		for _, m := range x["messages"].([]any) {
			if m := m.(map[string]any); m["id"] == id {
				m["embeds"] = []any{map[string]any{"title": "Release 2.4 plan", "url": "https://example.com/plan"}}
			}
		}
	})
	checkReimportKeeps(t, Discord(discordFixture), Discord(later), id)
}

// checkReimportKeeps imports before, then after, which holds the message key changed
// without a dated edit: after adds nothing and changes no row, counting the message as
// kept, and so does a third import. after imported first, then before, keeps after's rows.
func checkReimportKeeps(t *testing.T, before, after Source, key string) {
	t.Helper()
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			for _, order := range [][2]Source{{before, after}, {after, before}} {
				st := sc.open(t)
				first, err := Import(ctx, st, "main", order[0])
				if err != nil {
					t.Fatal(err)
				}
				rows := readDesk(t, st, "main")
				if findKey(t, rows, key).Content == "" {
					t.Fatalf("the message %s imported blank", key)
				}
				for _, again := range []string{"the second import", "a third import"} {
					counts, err := Import(ctx, st, "main", order[1])
					if want := (Counts{Present: first.Added, Kept: 1}); err != nil || counts != want {
						t.Fatalf("%s: %+v, %v; want %+v", again, counts, err, want)
					}
					if diff := cmp.Diff(rows, readDesk(t, st, "main")); diff != "" {
						t.Errorf("%s changed the desk (-before +after):\n%s", again, diff)
					}
				}
			}
		})
	}
}

// TestChatReimportStillRefuses: a chat export's message that differs from the desk's row
// with its key in more than its text (here its thread) still fails the import, naming what
// differs and quoting neither.
func TestChatReimportStillRefuses(t *testing.T) {
	const ts = "1714640700.000600" // a reply in the thread of 1714640640.000500
	later := exportfixture.Copy(t, slackFixture)
	editSlackDay(t, later, "general/2024-05-02.json", func(msgs []map[string]any) []map[string]any {
		for _, m := range msgs {
			if m["ts"] == ts {
				m["thread_ts"] = "1714554120.000300"
				m["text"] = "moved and changed"
			}
		}
		return msgs
	})
	st := newMemStore()
	if _, err := Import(t.Context(), st, "main", Slack(slackFixture, "general")); err != nil {
		t.Fatal(err)
	}
	_, err := Import(t.Context(), st, "main", Slack(later, "general"))
	if err == nil || !strings.Contains(err.Error(), "differs in its parent and content") || strings.Contains(err.Error(), "moved and changed") {
		t.Errorf("a reply moved to another thread: %v; want a refusal naming its parent and content alone", err)
	}
}

// TestSlackTombstoneOverAnAside: a Slack tombstone whose ts names a desk row that is an
// aside is not the deleted message kept as the desk has it: the difference in audience is
// reported, as any difference but author and content is.
func TestSlackTombstoneOverAnAside(t *testing.T) {
	const root, reply = "1714640640.000500", "1714640700.000600"
	later := exportfixture.Copy(t, slackFixture)
	editSlackDay(t, later, "general/2024-05-02.json", func(msgs []map[string]any) []map[string]any {
		var out []map[string]any
		for _, m := range msgs {
			switch m["ts"] {
			case reply:
				continue // its parent would be the aside, which the reply rule decides otherwise
			case root:
				for k := range m {
					if k != "ts" && k != "thread_ts" && k != "type" {
						delete(m, k)
					}
				}
				m["subtype"], m["user"], m["text"], m["hidden"] = "tombstone", "USLACKBOT", "This message was deleted.", true
			}
			out = append(out, m)
		}
		return out
	})
	st := newMemStore()
	appendAll(t, st, "main", transcript.Message{Author: corrAna, Content: "between us", Key: root, Audience: []transcript.Author{corrBen}})
	counts, err := Import(t.Context(), st, "main", Slack(later, "general"))
	if err == nil || !strings.Contains(err.Error(), "differs in its author, audience and content") || strings.Contains(err.Error(), "between us") {
		t.Errorf("a tombstone over an aside: %+v, %v; want a refusal naming author, audience and content, quoting neither", counts, err)
	}
}

// TestSlackReimportKeepsUndatedChangeOfEditedMessage: a later export that holds an edited
// message with the same edit but another text (a file deleted since) keeps the desk's text
// and counts it as kept.
func TestSlackReimportKeepsUndatedChangeOfEditedMessage(t *testing.T) {
	const ts = "1714554480.000900" // marked edited in the fixture
	later := exportfixture.Copy(t, slackFixture)
	editSlackDay(t, later, "general/2024-05-01.json", func(msgs []map[string]any) []map[string]any {
		for _, m := range msgs {
			if m["ts"] == ts {
				m["files"] = []any{map[string]any{"id": "F09", "mode": "tombstone"}}
			}
		}
		return msgs
	})
	st := newMemStore()
	first, err := Import(t.Context(), st, "main", Slack(slackFixture, "general"))
	if err != nil {
		t.Fatal(err)
	}
	before := findKey(t, readDesk(t, st, "main"), ts).Content
	counts, err := Import(t.Context(), st, "main", Slack(later, "general"))
	if want := (Counts{Present: first.Added, Kept: 1}); err != nil || counts != want {
		t.Errorf("import: %+v, %v; want %+v", counts, err, want)
	}
	if after := findKey(t, readDesk(t, st, "main"), ts).Content; after != before {
		t.Errorf("the message reads %q after the import, want the desk's %q", after, before)
	}
}

// TestImportNamesTheAuthorOfAReplyToAnAside: a reply to an aside whose author changed (one
// who may not read the aside) is reported as differing in its author, not its audience.
func TestImportNamesTheAuthorOfAReplyToAnAside(t *testing.T) {
	st := newMemStore()
	lines := `{"id":"r","author":{"type":"person","id":"ana"},"content":"between us","audience":[{"type":"person","id":"ben"}]}
{"id":"s","author":{"type":"person","id":"ben"},"content":"ok","parent":"r"}
`
	if _, err := Import(t.Context(), st, "main", JSONLines(strings.NewReader(lines), 0)); err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(lines, `"id":"ben"},"content":"ok"`, `"id":"carol"},"content":"ok"`, 1)
	_, err := Import(t.Context(), st, "main", JSONLines(strings.NewReader(changed), 0))
	if err == nil || !strings.Contains(err.Error(), "which differs in its author") || strings.Contains(err.Error(), "audience") {
		t.Errorf("a reply whose author changed: %v; want it named as differing in its author alone", err)
	}
}

// TestChatReimportKeepsEditsNoStoreTakes: a later export that marks a message edited, when
// the desk holds it blank (a bot's message whose text Slack exported in blocks alone) or
// the edit leaves it blank, keeps the desk's row and counts it as kept, since no store
// takes a correction of a blank row nor an edit to a blank text; the import after it does
// the same, rather than every later import failing.
func TestChatReimportKeepsEditsNoStoreTakes(t *testing.T) {
	const ts, id = "1714554300.000600", "1235155503022080017"
	slackBot := func(text string, edited bool) Source {
		dir := exportfixture.Copy(t, slackFixture)
		editSlackDay(t, dir, "general/2024-05-01.json", func(msgs []map[string]any) []map[string]any {
			for _, m := range msgs {
				if m["ts"] == ts {
					m["text"] = text
					delete(m, "attachments")
					if edited {
						m["edited"] = map[string]any{"user": "B07CI", "ts": "1714560000.000000"}
					}
				}
			}
			return msgs
		})
		return Slack(dir, "general")
	}
	discordText := func(text string, edited bool) Source {
		dir := exportfixture.Copy(t, discordFixture)
		editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
			for _, m := range x["messages"].([]any) {
				if m := m.(map[string]any); m["id"] == id {
					m["content"] = text
					if edited {
						m["timestampEdited"] = "2024-05-01T12:30:00+02:00"
					}
				}
			}
		})
		return Discord(dir)
	}
	for _, tt := range []struct {
		name          string
		before, after Source
	}{
		{"slack: an edit of a message stored blank", slackBot("", false), slackBot("Build #413 fixed", true)},
		{"slack: an edit to a blank text", slackBot("Build #413 failed", false), slackBot("", true)},
		{"discord: an edit to a blank text", discordText("Standup moved.", false), discordText("", true)},
	} {
		for _, sc := range correctionStores {
			t.Run(tt.name+"/"+sc.name, func(t *testing.T) {
				ctx := t.Context()
				st := sc.open(t)
				first, err := Import(ctx, st, "main", tt.before)
				if err != nil {
					t.Fatal(err)
				}
				rows := readDesk(t, st, "main")
				for _, again := range []string{"the edited export", "the edited export again"} {
					counts, err := Import(ctx, st, "main", tt.after)
					if want := (Counts{Present: first.Added, Kept: 1}); err != nil || counts != want {
						t.Fatalf("%s: %+v, %v; want %+v", again, counts, err, want)
					}
					if diff := cmp.Diff(rows, readDesk(t, st, "main")); diff != "" {
						t.Errorf("%s changed the desk (-before +after):\n%s", again, diff)
					}
				}
			})
		}
	}
}
