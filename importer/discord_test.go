package importer

import (
	"github.com/sharedesk/transcript/internal/exportfixture"

	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
)

const (
	discordFixture = "testdata/discord/export"
	discordChannel = "Sharedesk - Text Channels - general [1224146209996800042].json"
	discordThread  = "Sharedesk - general - Blockers for 2.4 [1235154244730880101].json"
	discordStart   = "1235154244730880101" // the message the thread was started from
)

// discordWant is one row expected of the Discord fixture.
type discordWant struct {
	file, id, parent string
	at               string // RFC 3339, UTC
	author           transcript.Author
	content          string
}

var (
	discordAna = transcript.Person("411111111111111111", "Ana")
	discordBen = transcript.Person("422222222222222222", "Ben")
	discordCho = transcript.Person("433333333333333333", "cho")
	discordDee = transcript.Person("444444444444444444", "Dee")
	discordBot = transcript.Agent("455555555555555555", "Deploy Bot")
)

// discordWantChannel is the fixture's channel file, in timestamp order.
var discordWantChannel = []discordWant{
	{discordChannel, "1235153741414400011", "", "2024-05-01T09:00:00.214Z", transcript.System("join", "Ana"), "Joined the server."},
	{discordChannel, "1235153993072640012", "", "2024-05-01T09:01:00.051Z", discordAna, "Morning! Release 2.4 goes out Thursday."},
	{discordChannel, discordStart, "", "2024-05-01T09:02:00Z", discordAna, "Blockers for 2.4? Let's keep them in a thread."},
	{discordChannel, "1235154496389120013", "1235153993072640012", "2024-05-01T09:03:00.377Z", discordBen, "Thursday works for the backend team."},
	{discordChannel, "1235154748047360014", "", "2024-05-01T09:04:00Z", discordBot, "[embed: Staging deploy finished]"},
	{discordChannel, "1235154999705600015", "", "2024-05-01T09:05:00.902Z", discordAna, "Rollout plan attached\n[attachment: rollout-plan.pdf]"},
	{discordChannel, "1235155251363840016", "", "2024-05-01T09:06:00.12Z", transcript.System("pin", "Ben"), "Pinned a message."},
	{discordChannel, "1235155503022080017", "", "2024-05-01T09:07:00.44Z", discordBen, "Standup moved to 10:30, retro on Friday."}, // edited
	{discordChannel, "1235155754680320018", "1235154748047360014", "2024-05-01T09:08:00.663Z", discordCho, "Looks good on staging."},
	{discordChannel, "1235156257996800019", "", "2024-05-01T09:10:00.015Z", discordDee, "[attachment: screenshot.png]"},
}

// discordWantThread is the fixture's thread file, its ThreadStarterMessage skipped.
var discordWantThread = []discordWant{
	{discordThread, "1235154748047360009", discordStart, "2024-05-01T09:04:00Z", discordBen, "I can take the migration review."},
	{discordThread, "1235155377192960203", "1235154748047360009", "2024-05-01T09:06:30.25Z", discordCho, "Thanks, I'll pair with you on it."},
	{discordThread, "1235155628851200204", discordStart, "2024-05-01T09:07:30Z", transcript.System("rename", "Ana"), "Changed the channel name."},
}

// discordRowsOf returns the import rows want stands for, in the order given.
func discordRowsOf(t *testing.T, want ...discordWant) []importRow {
	t.Helper()
	rows := make([]importRow, len(want))
	for i, w := range want {
		at, err := time.Parse(time.RFC3339Nano, w.at)
		if err != nil {
			t.Fatalf("bad time in the test's table: %v", err)
		}
		rows[i] = importRow{
			Message:   transcript.Message{Author: w.author, Content: w.content, At: at, Key: w.id},
			ParentKey: w.parent,
			Where:     strconv.Quote(w.file) + ": message " + w.id,
		}
		if edited, ok := discordEdited[w.id]; ok {
			at, _ := time.Parse(time.RFC3339Nano, edited)
			rows[i].Edit = &rowEdit{Key: w.id + "/edited/" + edited, At: at}
		}
	}
	return rows
}

// discordEdited holds the timestampEdited of the fixture's edited messages, in UTC, by id:
// the fixture writes it with another offset.
var discordEdited = map[string]string{"1235155503022080017": "2024-05-01T09:09:12.008Z"}

// discordWantFolder is the channel and its thread read together, in timestamp order (the
// thread's first reply has the same timestamp as the bot's message, and a smaller id).
func discordWantFolder() []discordWant {
	c, th := discordWantChannel, discordWantThread
	return []discordWant{c[0], c[1], c[2], c[3], th[0], c[4], c[5], c[6], th[1], c[7], th[2], c[8], c[9]}
}

func TestDiscordExportFolder(t *testing.T) {
	got, _, err := readDiscordExport(discordFixture)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(discordRowsOf(t, discordWantFolder()...), got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestDiscordExportZip(t *testing.T) {
	for _, top := range []string{"", "general/"} {
		name := filepath.Join(t.TempDir(), "general.zip")
		exportfixture.Zip(t, name, discordFixture, top)
		got, _, err := readDiscordExport(name)
		if err != nil {
			t.Fatalf("top folder %q: %v", top, err)
		}
		if diff := cmp.Diff(discordRowsOf(t, discordWantFolder()...), got); diff != "" {
			t.Errorf("top folder %q: rows (-want +got):\n%s", top, diff)
		}
	}
}

func TestDiscordExportOneFile(t *testing.T) {
	got, _, err := readDiscordExport(filepath.Join(discordFixture, discordChannel))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(discordRowsOf(t, discordWantChannel...), got); diff != "" {
		t.Errorf("channel file (-want +got):\n%s", diff)
	}
	// A thread's file read alone is a channel of its own: its messages are roots.
	got, _, err = readDiscordExport(filepath.Join(discordFixture, discordThread))
	if err != nil {
		t.Fatal(err)
	}
	alone := append([]discordWant(nil), discordWantThread...)
	alone[0].parent, alone[2].parent = "", ""
	if diff := cmp.Diff(discordRowsOf(t, alone...), got); diff != "" {
		t.Errorf("thread file (-want +got):\n%s", diff)
	}
}

func TestDiscordExportVariants(t *testing.T) {
	t.Run("thread started by a ThreadCreated notice", func(t *testing.T) {
		dir := exportfixture.Copy(t, discordFixture)
		const thread = "1235154370560000300"
		editDiscordFile(t, dir, discordThread, func(x map[string]any) {
			x["channel"].(map[string]any)["id"] = thread
		})
		editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
			notice := discordMessage("1235154370560000301", "ThreadCreated", "2024-05-01T10:02:40+01:00", "Started a thread.")
			notice["reference"] = map[string]any{"messageId": nil, "channelId": thread, "guildId": "1224146209996800001"}
			x["messages"] = append(x["messages"].([]any), notice)
		})
		got, _, err := readDiscordExport(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := discordWantFolder()
		want = append(want[:3:3], append([]discordWant{{discordChannel, "1235154370560000301", "", "2024-05-01T09:02:40Z", transcript.System("thread", "Ana"), "Started a thread."}}, want[3:]...)...)
		for i := range want {
			if want[i].file == discordThread && want[i].parent == discordStart {
				want[i].parent = "1235154370560000301" // the notice, not the message of the same id
			}
		}
		if diff := cmp.Diff(discordRowsOf(t, want...), got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
	})
	t.Run("forum post", func(t *testing.T) {
		dir := exportfixture.Copy(t, discordFixture)
		exportfixture.Remove(t, dir, discordChannel)
		editDiscordFile(t, dir, discordThread, func(x map[string]any) {
			post := discordMessage(discordStart, "Default", "2024-05-01T10:02:00+01:00", "Blockers for 2.4?")
			x["messages"] = append([]any{post}, x["messages"].([]any)[1:]...)
		})
		got, _, err := readDiscordExport(dir)
		if err != nil {
			t.Fatal(err)
		}
		want := append([]discordWant{{discordThread, discordStart, "", "2024-05-01T09:02:00Z", discordAna, "Blockers for 2.4?"}}, discordWantThread...)
		if diff := cmp.Diff(discordRowsOf(t, want...), got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
	})
	t.Run("reply to another channel, forwarded message, sticker, no nickname", func(t *testing.T) {
		dir := exportfixture.Copy(t, discordFixture)
		editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
			msgs := x["messages"].([]any)
			reply := msgs[3].(map[string]any)
			reply["reference"].(map[string]any)["channelId"] = "1224146209996800777"
			reply["reference"].(map[string]any)["messageId"] = "1224146209996800778"
			forward := msgs[9].(map[string]any)
			forward["reference"] = map[string]any{"type": "Forward", "messageId": "1224146209996800778", "channelId": "1224146209996800777"}
			forward["forwardedMessage"] = map[string]any{"content": "Freeze starts Wednesday.", "attachments": []any{map[string]any{"fileName": "freeze.ics"}}}
			forward["stickers"] = []any{map[string]any{"id": "1", "name": "ship it", "format": "Png"}}
			forward["author"].(map[string]any)["nickname"] = nil
		})
		got, _, err := readDiscordExport(filepath.Join(dir, discordChannel))
		if err != nil {
			t.Fatal(err)
		}
		want := append([]discordWant(nil), discordWantChannel...)
		want[3].parent = ""
		want[3].content += "\n[reply to a message in another channel]"
		want[9].author = transcript.Person("444444444444444444", "dee")
		want[9].content = "[attachment: screenshot.png]\n[sticker: ship it]\n[forwarded message]\nFreeze starts Wednesday.\n[attachment: freeze.ics]"
		if diff := cmp.Diff(discordRowsOf(t, want...), got); diff != "" {
			t.Errorf("rows (-want +got):\n%s", diff)
		}
	})
	t.Run("notice kinds", func(t *testing.T) {
		for typ, kind := range map[string]string{
			"GuildMemberJoin": "join", "RecipientRemove": "leave", "ChannelIconChange": "icon",
			"GuildBoostTier1": "guild-boost-tier1", "AutoModerationAction": "auto-moderation-action", "7": "join", "44": "discord-44",
		} {
			r := &dceRow{msg: &dceMessage{}, typ: typ}
			if name, ok := dceTypeNames[typ]; ok {
				r.typ = name
			}
			if got := dceAuthor(r); got.Kind != transcript.KindSystem || got.ID != kind {
				t.Errorf("type %q: author %v, want system:%s", typ, got, kind)
			}
		}
	})
}

// discordContents are texts of the fixture's messages that no error may quote.
var discordContents = []string{"Morning!", "keep them in a thread", "backend team", "migration review", "pair with you", "Looks good", "Standup", "secret"}

func TestDiscordBadExports(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(t *testing.T, dir string) string // returns the path to read
		want   []string                              // each must be in the error
		not    []string                              // none may be
	}{
		{
			name:   "missing file",
			mutate: func(t *testing.T, dir string) string { return filepath.Join(dir, "general.json") },
			want:   []string{"general.json", "no such file"},
		},
		{
			name: "malformed JSON",
			mutate: func(t *testing.T, dir string) string {
				name := filepath.Join(dir, discordChannel)
				exportfixture.WriteFile(t, name, `{"channel": {"id": "1"}, "messages": [{"id": "2", "content": "secret"`)
				return name
			},
			want: []string{strconv.Quote(discordChannel) + ": invalid JSON: the file ends inside a value"},
		},
		{
			name: "malformed JSON in a folder",
			mutate: func(t *testing.T, dir string) string {
				exportfixture.WriteFile(t, filepath.Join(dir, discordThread), `{"messages": [{"content": "secret"}}`)
				return dir
			},
			want: []string{strconv.Quote(discordThread) + ": invalid JSON at byte"},
		},
		{
			name: "not an export",
			mutate: func(t *testing.T, dir string) string {
				name := filepath.Join(dir, "settings.json")
				exportfixture.WriteFile(t, name, `{"theme": "dark"}`)
				return name
			},
			want: []string{`"settings.json" is not a DiscordChatExporter JSON export`},
		},
		{
			name: "NUL in a message",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordThread, func(x map[string]any) {
					x["messages"].([]any)[1].(map[string]any)["content"] = "secret\x00word"
				})
				return dir
			},
			want: []string{strconv.Quote(discordThread) + ": message 1235154748047360009: its content holds a NUL byte"},
		},
		{
			name: "bad timestamp",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
					x["messages"].([]any)[7].(map[string]any)["timestamp"] = "01/05/2024 10:07"
				})
				return dir
			},
			want: []string{strconv.Quote(discordChannel) + ": message 1235155503022080017: no timestamp, or one that is not RFC 3339"},
		},
		{
			name: "timestampEdited outside the years a store keeps",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
					x["messages"].([]any)[7].(map[string]any)["timestampEdited"] = "0000-12-31T23:00:00+00:00"
				})
				return dir
			},
			want: []string{strconv.Quote(discordChannel) + ": message 1235155503022080017: its timestampEdited 0000-12-31 23:00:00 +0000 UTC is outside the years 1 to 9999"},
			not:  []string{"its at "},
		},
		{
			name: "a bad thread start reported alone",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
					x["messages"].([]any)[2].(map[string]any)["timestamp"] = ""
				})
				return dir
			},
			want: []string{strconv.Quote(discordChannel) + ": message 1235154244730880101: no timestamp"},
			not:  []string{"bad messages", "not in the export"},
		},
		{
			name: "bad id",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordChannel, func(x map[string]any) {
					x["messages"].([]any)[7].(map[string]any)["id"] = "secret"
				})
				return dir
			},
			want: []string{strconv.Quote(discordChannel) + ": entry 8: no id, or one that is not a Discord id"},
		},
		{
			name: "id given twice",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordThread, func(x map[string]any) {
					x["messages"].([]any)[3].(map[string]any)["id"] = "1235155503022080017"
				})
				return dir
			},
			want: []string{"message 1235155503022080017: the same id as"},
		},
		{
			name: "thread of another channel",
			mutate: func(t *testing.T, dir string) string {
				editDiscordFile(t, dir, discordThread, func(x map[string]any) {
					x["channel"].(map[string]any)["categoryId"] = "1224146209996800999"
				})
				return dir
			},
			want: []string{strconv.Quote(discordThread) + " is a thread of channel 1224146209996800999, not of channel 1224146209996800042"},
		},
		{
			name: "two channels in one folder",
			mutate: func(t *testing.T, dir string) string {
				data, err := os.ReadFile(filepath.Join(dir, discordChannel))
				if err != nil {
					t.Fatal(err)
				}
				other := strings.ReplaceAll(string(data), `"id": "1224146209996800042"`, `"id": "1224146209996800043"`)
				exportfixture.WriteFile(t, filepath.Join(dir, "Sharedesk - Text Channels - random [1224146209996800043].json"), other)
				return dir
			},
			want: []string{"export different channels (1224146209996800042 and 1224146209996800043)"},
		},
		{
			name:   "empty folder",
			mutate: func(t *testing.T, dir string) string { return t.TempDir() },
			want:   []string{"no .json export file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exportfixture.Copy(t, discordFixture)
			name := tt.mutate(t, dir)
			rows, _, err := readDiscordExport(name)
			if err == nil {
				t.Fatalf("no error; got %d rows", len(rows))
			}
			checkExportError(t, err, "discord export "+name, tt.want, tt.not, discordContents)
		})
	}
}

// FuzzDiscordThreadFile reads the fixture with the thread's file replaced by the fuzzer's
// bytes: it must never panic, and what it accepts must be rows the pipeline can store.
func FuzzDiscordThreadFile(f *testing.F) {
	channel, err := os.ReadFile(filepath.Join(discordFixture, discordChannel))
	if err != nil {
		f.Fatal(err)
	}
	thread, err := os.ReadFile(filepath.Join(discordFixture, discordThread))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(thread)
	f.Add([]byte(`{"channel":{"id":"1235154244730880101","type":"GuildPublicThread","categoryId":"1224146209996800042"},"messages":[{"id":"9","type":"Reply","timestamp":"2024-05-01T09:00:00Z","author":{"id":"1"},"reference":{"messageId":"1235154244730880101"}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{discordChannel: {Data: channel}, discordThread: {Data: data}}
		files, err := readDCEFolder(fsys)
		if err != nil {
			return
		}
		rows, _, err := discordRows(files)
		if err != nil {
			return
		}
		checkExportRows(t, rows)
	})
}

// discordMessage returns a message of the fixture's shape, by Ana.
func discordMessage(id, typ, timestamp, content string) map[string]any {
	return map[string]any{
		"id": id, "type": typ, "timestamp": timestamp, "timestampEdited": nil, "isPinned": false, "content": content,
		"author":      map[string]any{"id": "411111111111111111", "name": "ana.pereira", "discriminator": "0000", "nickname": "Ana", "isBot": false},
		"attachments": []any{}, "embeds": []any{}, "stickers": []any{}, "reactions": []any{}, "mentions": []any{},
	}
}

// dropMessage removes the message id from the export x.
func dropMessage(x map[string]any, id string) {
	var kept []any
	for _, m := range x["messages"].([]any) {
		if m.(map[string]any)["id"] != id {
			kept = append(kept, m)
		}
	}
	x["messages"] = kept
}

// editDiscordFile rewrites the export file name of dir with edit's changes.
func editDiscordFile(t *testing.T, dir, name string, edit func(map[string]any)) {
	t.Helper()
	file := filepath.Join(dir, name)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var x map[string]any
	if err := json.Unmarshal(data, &x); err != nil {
		t.Fatal(err)
	}
	edit(x)
	if data, err = json.MarshalIndent(x, "", "  "); err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, file, string(data))
}
