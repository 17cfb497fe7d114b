package importer

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
)

const (
	slackFixture = "testdata/slack/export"
	slackLater   = "testdata/slack/later"
	slackDay1    = "general/2024-05-01.json"
	slackDay2    = "general/2024-05-02.json"
	slackDay3    = "general/2024-05-03.json"
	slackRoot    = "1714554120.000300" // the thread most replies go to
)

// slackWant is one row expected of the Slack fixture.
type slackWant struct {
	file, ts, parent string
	author           transcript.Author
	content          string
}

var (
	slackAna    = transcript.Person("U01ANA", "Ana")
	slackBen    = transcript.Person("U02BEN", "Benjamin Okafor")
	slackCho    = transcript.Person("U03CHO", "Cho Min-jun") // deleted; named by real_name
	slackDee    = transcript.Person("U04DEE", "dee")         // no real name; named by name
	slackDeploy = transcript.Agent("B05DEPLOY", "Deploy Bot")
)

// slackWantExport is the fixture's general channel, in ts order.
var slackWantExport = []slackWant{
	{slackDay1, "1714554000.000100", "", transcript.System("join", "Ana"), "@Ana has joined the channel"},
	{slackDay1, "1714554060.000200", "", transcript.System("topic", "Ana"), "set the channel topic: Release 2.4 coordination"},
	{slackDay1, slackRoot, "", slackAna, "Release 2.4 goes out Thursday. Blockers?"},
	{slackDay1, "1714554180.000400", slackRoot, slackBen, "The migration needs one more review."},
	{slackDay1, "1714554240.000500", "", slackDeploy, "Staging deploy finished: build 412 is on staging."},
	{slackDay1, "1714554300.000600", "", transcript.Agent("B07CI", "ci-alerts"), "[attachment: Build #413 failed]"},
	{slackDay1, "1714554360.000700", slackRoot, slackCho, "I'll review it this afternoon."}, // thread_broadcast
	{slackDay1, "1714554420.000800", "", slackAna, "Rollout plan attached\n[file: rollout-plan.pdf]"},
	{slackDay1, "1714554480.000900", "", slackBen, "Standup moved to 10:30 & the retro to Friday <3"}, // edited
	{slackDay2, "1714640400.000100", slackRoot, slackDee, "Blocker cleared, the review is in."},
	{slackDay2, "1714640460.000200", "", transcript.System("purpose", "Benjamin Okafor"), "set the channel purpose: Where releases are planned and shipped"},
	{slackDay2, "1714640520.000300", "", slackDeploy, "Production deploy started for 2.4.0"}, // no bot_profile: named from users.json
	{slackDay2, "1714640580.000400", "", transcript.Agent("USLACKBOT", "Slackbot"), "Reminder: write the release notes."},
	{slackDay2, "1714640640.000500", "", slackDee, "Is the changelog final?"},
	{slackDay2, "1714640700.000600", "1714640640.000500", slackAna, "Yes, see the attached.\n[file: CHANGELOG.md]\n[file: deleted]"},
}

// slackWantLater is what the later export adds.
var slackWantLater = []slackWant{
	{slackDay3, "1714726800.000100", slackRoot, slackBen, "Shipped. Thanks all."},
	{slackDay3, "1714726860.000200", "", transcript.System("leave", "dee"), "@dee has left the channel"},
	{slackDay3, "1714726920.000300", "", transcript.Person("U01ANA", "Ana P."), "Retro on Friday at 15:00."},
}

// slackRows returns the import rows want stands for.
func slackRows(t *testing.T, want []slackWant) []importRow {
	t.Helper()
	rows := make([]importRow, len(want))
	for i, w := range want {
		secs, micros, _ := strings.Cut(w.ts, ".")
		s, err1 := strconv.ParseInt(secs, 10, 64)
		us, err2 := strconv.ParseInt(micros, 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("bad ts %q in the test's table", w.ts)
		}
		rows[i] = importRow{
			Message:   transcript.Message{Author: w.author, Content: w.content, At: time.Unix(s, us*1000).UTC(), Key: w.ts},
			ParentKey: w.parent,
			Where:     strconv.Quote(w.file) + ": message " + w.ts,
		}
		if edited, ok := slackEdited[w.ts]; ok {
			at, _ := parseSlackTS(edited)
			rows[i].Edit = &rowEdit{Key: w.ts + "/edited/" + edited, At: at}
		}
	}
	return rows
}

// slackEdited holds the edited.ts of the fixture's edited messages, by ts.
var slackEdited = map[string]string{"1714554480.000900": "1714554540.000000"}

func TestSlackExport(t *testing.T) {
	got, _, err := readSlackExport(slackFixture, "general")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slackRows(t, slackWantExport), got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if len(got) > 2 {
		if at, want := got[2].Message.At, time.Date(2024, 5, 1, 9, 2, 0, 300_000, time.UTC); !at.Equal(want) {
			t.Errorf("ts %s is at %v, want %v", got[2].Message.Key, at, want)
		}
	}
	for _, r := range got {
		if err := r.Message.Author.Validate(); err != nil {
			t.Errorf("%s: %v", r.Where, err)
		}
	}
}

func TestSlackExportChannelByIDOrHash(t *testing.T) {
	want, _, err := readSlackExport(slackFixture, "general")
	if err != nil {
		t.Fatal(err)
	}
	for _, channel := range []string{"#general", "C01GENERAL"} {
		got, _, err := readSlackExport(slackFixture, channel)
		if err != nil {
			t.Fatalf("%s: %v", channel, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: rows differ from general's (-want +got):\n%s", channel, diff)
		}
	}
	random, _, err := readSlackExport(slackFixture, "random")
	if err != nil {
		t.Fatal(err)
	}
	if len(random) != 1 || random[0].Where != `"random/2024-05-01.json": message 1714557600.001100` {
		t.Errorf("random: got %+v, want its one message", random)
	}
}

func TestSlackExportZip(t *testing.T) {
	want, _, err := readSlackExport(slackFixture, "general")
	if err != nil {
		t.Fatal(err)
	}
	for _, top := range []string{"", "sharedesk Slack export May 1 2024 - May 2 2024/"} {
		zipName := filepath.Join(t.TempDir(), "export.zip")
		exportfixture.Zip(t, zipName, slackFixture, top)
		got, _, err := readSlackExport(zipName, "general")
		if err != nil {
			t.Fatalf("top folder %q: %v", top, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("top folder %q: rows differ from the folder's (-want +got):\n%s", top, diff)
		}
	}
}

func TestSlackLaterExportAddsOnlyNewRows(t *testing.T) {
	earlier, _, err := readSlackExport(slackFixture, "general")
	if err != nil {
		t.Fatal(err)
	}
	later, chat, err := readSlackExport(slackLater, "general")
	if err != nil {
		t.Fatal(err)
	}
	if len(later) != len(earlier)+len(slackWantLater) {
		t.Fatalf("later export: %d rows, want %d", len(later), len(earlier)+len(slackWantLater))
	}
	// Ana renamed herself between the exports: labels differ, in authors and mentions,
	// identities do not, and the import matches a key by identity, parent and content,
	// mentions labelled otherwise being alike.
	ignoreLabels := cmp.Transformer("identity", func(a transcript.Author) string { return a.String() })
	earlierAsLater := make([]importRow, len(earlier))
	for i, r := range earlier {
		earlierAsLater[i] = r
		if alike := chat.alike[r.Message.Key]; alike != nil && alike(r.Message.Content) {
			earlierAsLater[i].Message.Content = later[i].Message.Content
		}
	}
	if earlier[0].Message.Content == later[0].Message.Content {
		t.Errorf("the join's mention reads %q in both exports: the rename is not in the later one", earlier[0].Message.Content)
	}
	if diff := cmp.Diff(earlierAsLater, later[:len(earlier)], ignoreLabels); diff != "" {
		t.Errorf("the earlier rows changed (-earlier +later):\n%s", diff)
	}
	if diff := cmp.Diff(slackRows(t, slackWantLater), later[len(earlier):]); diff != "" {
		t.Errorf("new rows (-want +got):\n%s", diff)
	}
}

// slackContents are texts of the fixture's messages that no error may quote.
var slackContents = []string{"Release 2.4 goes out", "migration needs", "Blocker cleared", "Reminder: write", "changelog final", "see the attached", "Standup moved", "secret"}

func TestSlackBadExports(t *testing.T) {
	tests := []struct {
		name    string
		channel string
		mutate  func(t *testing.T, dir string) string // returns the path to read
		want    []string                              // each must be in the error
		not     []string                              // none may be
	}{
		{
			name:   "missing path",
			mutate: func(t *testing.T, dir string) string { return filepath.Join(dir, "nowhere") },
			want:   []string{"nowhere"},
		},
		{
			name: "neither folder nor zip",
			mutate: func(t *testing.T, dir string) string {
				name := filepath.Join(dir, "export.txt")
				exportfixture.WriteFile(t, name, "not an archive")
				return name
			},
			want: []string{"export.txt", "neither a folder nor a .zip archive"},
		},
		{
			name:   "missing users.json",
			mutate: func(t *testing.T, dir string) string { exportfixture.Remove(t, dir, "users.json"); return dir },
			want:   []string{`"users.json" is missing`},
		},
		{
			name:   "missing channels.json",
			mutate: func(t *testing.T, dir string) string { exportfixture.Remove(t, dir, "channels.json"); return dir },
			want:   []string{`"channels.json" is missing`},
		},
		{
			name: "malformed users.json",
			mutate: func(t *testing.T, dir string) string {
				exportfixture.WriteFile(t, filepath.Join(dir, "users.json"), `[{"id": "U01ANA",`)
				return dir
			},
			want: []string{`"users.json": invalid JSON`},
		},
		{
			name:    "unknown channel",
			channel: "releases",
			mutate:  func(t *testing.T, dir string) string { return dir },
			want:    []string{`no channel "releases"`, "general, random"},
		},
		{
			name:   "missing channel folder",
			mutate: func(t *testing.T, dir string) string { exportfixture.Remove(t, dir, "general"); return dir },
			want:   []string{`channel "general" has no folder "general/"`},
		},
		{
			name: "malformed day file",
			mutate: func(t *testing.T, dir string) string {
				exportfixture.WriteFile(t, filepath.Join(dir, slackDay2), `[{"type": "message", "text": "secret", "ts": "1714640400.000100"} {`)
				return dir
			},
			want: []string{`"general/2024-05-02.json": invalid JSON at byte`},
		},
		{
			name: "a bad escape in a message",
			mutate: func(t *testing.T, dir string) string {
				exportfixture.WriteFile(t, filepath.Join(dir, slackDay2), `[{"type": "message", "user": "U01ANA", "text": "pw \ud800hunter2", "ts": "1714640400.000100"}]`)
				return dir
			},
			want: []string{`"general/2024-05-02.json": invalid JSON at byte`, "invalid surrogate pair in string"},
			not:  []string{"hunter", `\ud800`},
		},
		{
			name: "users.json a folder",
			mutate: func(t *testing.T, dir string) string {
				exportfixture.Remove(t, dir, "users.json")
				if err := os.Mkdir(filepath.Join(dir, "users.json"), 0o755); err != nil {
					t.Fatal(err)
				}
				return dir
			},
			want: []string{`"users.json": unreadable: is a directory`},
			not:  []string{"invalid JSON"},
		},
		{
			name: "an archive whose member fails its checksum",
			mutate: func(t *testing.T, dir string) string {
				name := filepath.Join(t.TempDir(), "export.zip")
				storedZip(t, name, dir)
				data, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				// The same JSON with one letter changed: only the member's checksum tells.
				changed := bytes.Replace(data, []byte("Standup moved"), []byte("Standup moveD"), 1)
				if bytes.Equal(changed, data) {
					t.Fatal("the archive does not hold the fixture's text")
				}
				exportfixture.WriteFile(t, name, string(changed))
				return name
			},
			want: []string{"the archive is corrupt: zip: checksum error"},
			not:  []string{"invalid JSON"},
		},
		{
			name: "value of the wrong kind",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any { msgs[0]["ts"] = 1714640400.0001; return msgs })
				return dir
			},
			want: []string{`"general/2024-05-02.json": at "/0/ts": unexpected JSON number`},
		},
		{
			name: "NUL in a message",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any {
					msgs[3]["text"] = "secret\x00word"
					return msgs
				})
				return dir
			},
			want: []string{`"general/2024-05-02.json": message 1714640580.000400: its content holds a NUL byte`},
		},
		{
			name: "a bad thread root reported alone",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay1, func(msgs []map[string]any) []map[string]any {
					msgs[2]["text"] = "secret\x00word"
					return msgs
				})
				return dir
			},
			want: []string{`"general/2024-05-01.json": message 1714554120.000300: its content holds a NUL byte`},
			not:  []string{"bad messages", "not in the export"},
		},
		{
			name: "NUL in a user's name",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any {
					msgs[3]["user"] = "U09NEW"
					msgs[3]["user_profile"] = map[string]any{"display_name": "secret\x00name"}
					return msgs
				})
				return dir
			},
			want: []string{`"general/2024-05-02.json": message 1714640580.000400: its author label holds a NUL byte at offset 6`},
		},
		{
			name: "edited.ts outside the years a store keeps",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any {
					msgs[3]["edited"] = map[string]any{"user": "U01ANA", "ts": "999999999999.000000"}
					return msgs
				})
				return dir
			},
			want: []string{`"general/2024-05-02.json": message 1714640580.000400: its edited.ts 33658-09-27 01:46:39 +0000 UTC is outside the years 1 to 9999`},
			not:  []string{"its at "},
		},
		{
			name: "missing ts",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any { delete(msgs[2], "ts"); return msgs })
				return dir
			},
			want: []string{`"general/2024-05-02.json": entry 3: no ts`},
		},
		{
			name: "ts given twice",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any {
					msgs[1]["ts"] = "1714554120.000300"
					return msgs
				})
				return dir
			},
			want: []string{`"general/2024-05-02.json": message 1714554120.000300: the same ts as "general/2024-05-01.json": message 1714554120.000300`},
		},
		{
			name: "no author",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any { delete(msgs[3], "user"); return msgs })
				return dir
			},
			want: []string{`"general/2024-05-02.json": message 1714640580.000400: a message without user or bot_id`},
		},
		{
			name: "every bad message reported",
			mutate: func(t *testing.T, dir string) string {
				editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any {
					delete(msgs[0], "user")
					msgs[3]["text"] = "secret\x00word"
					return msgs
				})
				return dir
			},
			want: []string{"2 bad messages", "message 1714640400.000100: a message without user", "message 1714640580.000400: its content holds a NUL byte"},
		},
		{
			name: "the first bad messages listed, the rest counted",
			mutate: func(t *testing.T, dir string) string {
				for _, day := range []string{slackDay1, slackDay2} {
					editSlackDay(t, dir, day, func(msgs []map[string]any) []map[string]any {
						for _, m := range msgs {
							m["text"] = "secret\x00word"
						}
						return msgs
					})
				}
				return dir
			},
			want: []string{"15 bad messages", `"general/2024-05-01.json": message 1714554000.000100: its content`, `"general/2024-05-02.json": message 1714640400.000100: its content`, "and 5 more bad messages"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := exportfixture.Copy(t, slackFixture)
			name := tt.mutate(t, dir)
			channel := tt.channel
			if channel == "" {
				channel = "general"
			}
			rows, _, err := readSlackExport(name, channel)
			if err == nil {
				t.Fatalf("no error; got %d rows", len(rows))
			}
			checkExportError(t, err, "slack export "+name, tt.want, tt.not, slackContents)
		})
	}
}

func TestSlackSkipsEditEventsAndOtherFiles(t *testing.T) {
	dir := exportfixture.Copy(t, slackFixture)
	editSlackDay(t, dir, slackDay2, func(msgs []map[string]any) []map[string]any {
		return append(msgs, map[string]any{
			"type": "message", "subtype": "message_changed", "hidden": true, "ts": "1714640800.000700",
			"message": map[string]any{"type": "message", "user": "U01ANA", "text": "edited", "ts": "1714640700.000600"},
		})
	})
	exportfixture.WriteFile(t, filepath.Join(dir, "general", "canvas_in_the_conversation.json"), `{"not": "a day file"}`)
	if err := os.Mkdir(filepath.Join(dir, "general", "attachments"), 0o755); err != nil {
		t.Fatal(err)
	}
	got, _, err := readSlackExport(dir, "general")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(slackRows(t, slackWantExport), got); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestSlackParseTS(t *testing.T) {
	for _, tt := range []struct {
		ts   string
		want time.Time
		ok   bool
	}{
		{"1714550400.000100", time.Date(2024, 5, 1, 8, 0, 0, 100_000, time.UTC), true},
		{"1714550400", time.Date(2024, 5, 1, 8, 0, 0, 0, time.UTC), true},
		{"1714550400.5", time.Date(2024, 5, 1, 8, 0, 0, 500_000_000, time.UTC), true},
		{"", time.Time{}, false},
		{"1714550400.", time.Time{}, false},
		{".000100", time.Time{}, false},
		{"-1714550400.000100", time.Time{}, false},
		{"1714550400.0001x0", time.Time{}, false},
		{"1714550400.0000000001", time.Time{}, false},
	} {
		got, ok := parseSlackTS(tt.ts)
		if ok != tt.ok || !got.Equal(tt.want) {
			t.Errorf("parseSlackTS(%q) = %v, %v; want %v, %v", tt.ts, got, ok, tt.want, tt.ok)
		}
	}
}

// FuzzSlackDayFile reads the fixture with one day file replaced by the fuzzer's bytes: it
// must never panic, and what it accepts must be rows the pipeline can store.
func FuzzSlackDayFile(f *testing.F) {
	fixture := fstest.MapFS{}
	for _, name := range []string{"users.json", "channels.json", slackDay1, slackDay2} {
		data, err := os.ReadFile(filepath.Join(slackFixture, name))
		if err != nil {
			f.Fatal(err)
		}
		fixture[name] = &fstest.MapFile{Data: data}
	}
	f.Add(fixture[slackDay2].Data)
	f.Add([]byte(`[{"ts":"1714640400.000100","thread_ts":"1714554120.000300","user":"U09","text":"x"}]`))
	f.Add([]byte(`[{"ts":"1.1","subtype":"bot_message"},{"ts":"1.2","subtype":"channel_join"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fsys := fstest.MapFS{}
		for name, file := range fixture {
			fsys[name] = file
		}
		fsys[slackDay2] = &fstest.MapFile{Data: data}
		rows, _, err := readSlackTree(fsys, "general")
		if err != nil {
			return
		}
		checkExportRows(t, rows)
	})
}

// checkExportRows reports rows an import could not store as they are: an invalid author,
// text the stores refuse, a key given twice, or a parent that is a later row (a parent the
// rows lack is the desk's to hold).
func checkExportRows(t *testing.T, rows []importRow) {
	t.Helper()
	seen, keys := map[string]bool{}, map[string]bool{}
	for _, r := range rows {
		keys[r.Message.Key] = true
	}
	for _, r := range rows {
		if err := r.Message.Author.Validate(); err != nil {
			t.Errorf("%s: %v", r.Where, err)
		}
		if p := storeProblem(r.Message, exportWording); p != "" {
			t.Errorf("%s: %s", r.Where, p)
		}
		if r.Message.Key == "" || seen[r.Message.Key] {
			t.Errorf("%s: key %q empty or seen before", r.Where, r.Message.Key)
		}
		if r.ParentKey != "" && keys[r.ParentKey] && !seen[r.ParentKey] {
			t.Errorf("%s: parent %q is a later row", r.Where, r.ParentKey)
		}
		seen[r.Message.Key] = true
	}
}

// editSlackDay rewrites the day file name of the export dir with edit's result.
func editSlackDay(t *testing.T, dir, name string, edit func([]map[string]any) []map[string]any) {
	t.Helper()
	file := filepath.Join(dir, name)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]any
	if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatal(err)
	}
	if data, err = json.Marshal(edit(msgs)); err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, file, string(data))
}

// storedZip writes the files under dir to a new zip archive name, uncompressed, so that a
// test may change a member's bytes in place.
func storedZip(t *testing.T, name, dir string) {
	t.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			return err
		}
		w, err := z.CreateHeader(&zip.FileHeader{Name: p, Method: zip.Store})
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	exportfixture.WriteFile(t, name, buf.String())
}
