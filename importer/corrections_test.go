package importer

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/exportfixture"
	"github.com/sharedesk/transcript/internal/storetest"
	"github.com/sharedesk/transcript/sqlitestore"
)

// correctionStores are the stores the corrections' import tests run on.
var correctionStores = []struct {
	name string
	open func(t *testing.T) Store
}{
	{"memory", func(*testing.T) Store { return newMemStore() }},
	{"sqlite", func(t *testing.T) Store {
		st, err := sqlitestore.Open(t.Context(), filepath.Join(t.TempDir(), "desk.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}},
}

// readDesk returns every row of desk, oldest first.
func readDesk(t *testing.T, st Store, desk string) []transcript.Message {
	t.Helper()
	rows, err := storetest.ReadLog(t.Context(), st.Log(desk))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// appendAll appends msgs to desk one at a time.
func appendAll(t *testing.T, st Store, desk string, msgs ...transcript.Message) {
	t.Helper()
	for i, m := range msgs {
		if _, err := st.Append(t.Context(), desk, m); err != nil {
			t.Fatalf("append %d: %v", i+1, err)
		}
	}
}

var (
	corrAna = transcript.Person("ana", "Ana")
	corrBen = transcript.Person("ben", "Ben")
	corrBot = transcript.Agent("bot", "Bot")
)

// erasedTexts are contents the desk of correctedDesk erased: no export may hold them.
var erasedTexts = []string{"deploy at 22:00", "deploy at 23:00", "deploy at 23:30"}

// correctedDesk fills desk with edits, a redaction of a row with earlier edits, a reply to
// it, and an aside edited by its author.
func correctedDesk(t *testing.T, st Store, desk string) {
	appendAll(t, st, desk,
		transcript.Message{Author: corrAna, Content: "deploy at 22:00", Key: "a1"},                                   // 1, redacted by 5
		transcript.Message{Author: corrBot, Content: "the token is hunter2", Audience: []transcript.Author{corrAna}}, // 2, an aside, edited by 6
		transcript.Message{Author: corrAna, Corrects: 1, Content: "deploy at 23:00", Key: "a1-edit"},                 // 3, erased by 5
		transcript.Message{Author: corrAna, Corrects: 1, Content: "deploy at 23:30"},                                 // 4, erased by 5
		transcript.Message{Author: transcript.Operator(), Corrects: 1, Redacted: true},                               // 5
		transcript.Message{Author: corrBot, Corrects: 2, Content: "the token is in the vault"},                       // 6, an aside's correction
		transcript.Message{Author: corrBen, Parent: 1, Content: "noted"},                                             // 7
		transcript.Message{Author: corrBen, Content: "build running", Key: "b1"},                                     // 8, edited by 9
		transcript.Message{Author: corrBen, Corrects: 8, Content: "build green", Key: "b1-edit"},                     // 9
	)
}

// TestExportRoundTripsCorrections: an export of a desk with corrections holds none of what
// a redaction erased, imports into an empty desk as exactly the rows stored (erased rows
// and erased corrections included, Revised kept, nothing applied again), and into its own
// desk as nothing new.
func TestExportRoundTripsCorrections(t *testing.T) {
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			src := sc.open(t)
			correctedDesk(t, src, "main")
			want := readDesk(t, src, "main")
			var export bytes.Buffer
			if err := Export(ctx, &export, src.Log("main")); err != nil {
				t.Fatal(err)
			}
			for _, erased := range erasedTexts {
				if strings.Contains(export.String(), erased) {
					t.Errorf("the export holds the erased %q:\n%s", erased, export.String())
				}
			}
			dst := sc.open(t)
			counts, err := Import(ctx, dst, "copy", JSONLines(bytes.NewReader(export.Bytes()), int64(export.Len())))
			if err != nil || counts != (Counts{Added: len(want)}) {
				t.Fatalf("import into an empty desk: %+v, %v; want %d added", counts, err, len(want))
			}
			if diff := cmp.Diff(want, readDesk(t, dst, "copy")); diff != "" {
				t.Errorf("the restored desk differs (-stored +restored):\n%s", diff)
			}
			counts, err = Import(ctx, src, "main", JSONLines(bytes.NewReader(export.Bytes()), int64(export.Len())))
			if err != nil || counts != (Counts{Present: len(want)}) {
				t.Errorf("import into its own desk: %+v, %v; want every row present", counts, err)
			}
			if diff := cmp.Diff(want, readDesk(t, src, "main")); diff != "" {
				t.Errorf("a re-import changed the desk (-before +after):\n%s", diff)
			}
		})
	}
}

// TestLaterExportBringsCorrections: a desk is exported, then its exported rows are edited
// and redacted (an edit erased by a redaction, an aside's edit) and a new row added and
// edited, and the desk exported again. The later export imports into the desk the earlier
// one filled: every exported row whose Revised names a correction the file holds is that
// row, the corrections are stored and applied, and the copy then holds exactly the
// source's rows, none of the erased words; the later export again adds nothing.
func TestLaterExportBringsCorrections(t *testing.T) {
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			src := sc.open(t)
			appendAll(t, src, "main",
				transcript.Message{Author: corrAna, Content: "deploy at 22:00", Key: "a1"},                                   // 1, redacted by 6
				transcript.Message{Author: corrBot, Content: "the token is hunter2", Audience: []transcript.Author{corrAna}}, // 2, an aside, edited by 7
				transcript.Message{Author: corrBen, Content: "build running", Key: "b1"},                                     // 3, edited by 4
			)
			first := exportText(t, src, "main")
			appendAll(t, src, "main",
				transcript.Message{Author: corrBen, Corrects: 3, Content: "build green", Key: "b1-edit"},     // 4
				transcript.Message{Author: corrAna, Corrects: 1, Content: "deploy at 23:00", Key: "a1-edit"}, // 5, erased by 6
				transcript.Message{Author: transcript.Operator(), Corrects: 1, Redacted: true},               // 6
				transcript.Message{Author: corrBot, Corrects: 2, Content: "the token is in the vault"},       // 7
				transcript.Message{Author: corrBen, Content: "release at noon", Key: "b2"},                   // 8, edited by 9
				transcript.Message{Author: corrBen, Corrects: 8, Content: "release at one", Key: "b2-edit"},  // 9
			)
			second := exportText(t, src, "main")
			want := readDesk(t, src, "main")

			dst := sc.open(t)
			if _, err := importText(ctx, dst, first); err != nil {
				t.Fatal(err)
			}
			counts, err := importText(ctx, dst, second)
			if want := (Counts{Added: 6, Present: 3}); err != nil || counts != want {
				t.Fatalf("the later export: %+v, %v; want %+v\nfirst:\n%s\nsecond:\n%s", counts, err, want, first, second)
			}
			got := readDesk(t, dst, "main")
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("the copy differs from the source (-source +copy):\n%s", diff)
			}
			for _, m := range got {
				for _, erased := range []string{"deploy at 22:00", "deploy at 23:00"} {
					if strings.Contains(m.Content, erased) {
						t.Errorf("row %d of the copy holds the erased %q", m.Seq, erased)
					}
				}
			}
			if counts, err := importText(ctx, dst, second); err != nil || counts != (Counts{Present: len(want)}) {
				t.Errorf("the later export again: %+v, %v; want every row present", counts, err)
			}
		})
	}
}

// exportText returns the export of desk of st.
func exportText(t *testing.T, st Store, desk string) string {
	t.Helper()
	var b bytes.Buffer
	if err := Export(t.Context(), &b, st.Log(desk)); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestImportCorrectionLines: a line that names its target by "corrects" (a key) or
// "corrects_seq" (a row of the desk) is a correction, applied to its target as the store
// appends it; the file imported again adds nothing (a corrected row matches its original
// line), and a changed text on a line that is no correction is still a key conflict.
func TestImportCorrectionLines(t *testing.T) {
	const earlier = `{"id":"1","author":{"type":"person","id":"ana"},"content":"deploy at 22:00"}
{"id":"2","author":{"type":"person","id":"ana"},"content":"deploy at 23:00","corrects":"1"}
{"id":"3","author":{"type":"person","id":"ben"},"content":"build running"}
`
	const file = earlier + `{"id":"4","author":{"type":"operator"},"content":"","corrects_seq":3,"redacted":true}
`
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			st := sc.open(t)
			counts, err := importText(t.Context(), st, earlier)
			if err != nil || counts != (Counts{Added: 3}) {
				t.Fatalf("import: %+v, %v; want 3 added", counts, err)
			}
			counts, err = importText(t.Context(), st, file)
			if err != nil || counts != (Counts{Added: 1, Present: 3}) {
				t.Fatalf("import of a later file: %+v, %v; want 1 added, 3 present", counts, err)
			}
			want := []transcript.Message{
				{Seq: 1, Author: transcript.Person("ana", ""), Content: "deploy at 23:00", Key: "1", Revised: 2},
				{Seq: 2, Author: transcript.Person("ana", ""), Content: "deploy at 23:00", Key: "2", Corrects: 1},
				{Seq: 3, Author: transcript.Person("ben", ""), Key: "3", Redacted: true, Revised: 4},
				{Seq: 4, Author: transcript.Operator(), Key: "4", Corrects: 3, Redacted: true},
			}
			if diff := cmp.Diff(want, readDesk(t, st, "main"), cmpopts.IgnoreFields(transcript.Message{}, "At")); diff != "" {
				t.Errorf("desk (-want +got):\n%s", diff)
			}
			counts, err = importText(t.Context(), st, file)
			if err != nil || counts != (Counts{Present: 4}) {
				t.Errorf("the file again: %+v, %v; want 4 present", counts, err)
			}
			_, err = importText(t.Context(), st, `{"id":"5","author":{"type":"person","id":"ana"},"content":"hi"}`+"\n")
			if err != nil {
				t.Fatal(err)
			}
			_, err = importText(t.Context(), st, `{"id":"5","author":{"type":"person","id":"ana"},"content":"hello"}`+"\n")
			if err == nil || !strings.Contains(err.Error(), `key "5" already names row 5`) {
				t.Errorf("a changed text: %v, want a key conflict", err)
			}
		})
	}
}

// TestImportCorrectionLineProblems: what is wrong with a correction line is its line's
// problem, and nothing is written.
func TestImportCorrectionLineProblems(t *testing.T) {
	st := newMemStore()
	_, err := importText(t.Context(), st, `{"id":"1","author":{"type":"person","id":"ana"},"content":"x"}
{"author":{"type":"person","id":"ana"},"content":" ","corrects":"1"}
{"author":{"type":"person","id":"ana"},"content":"y","corrects":"1","corrects_seq":1}
{"author":{"type":"person","id":"ana"},"content":"y","corrects":"1","parent":"1"}
{"author":{"type":"person","id":"ana"},"content":"y","corrects":"9"}
`)
	rerr, ok := err.(*RowsError)
	if !ok {
		t.Fatalf("import: %v, want a *RowsError", err)
	}
	want := []Problem{
		{"line 2", "an edit without content (to erase a row, redact it)"},
		{"line 3", `"corrects" and "corrects_seq" both given: a line names its target once`},
		{"line 4", `a correction ("corrects") with a parent: a correction replies to nothing`},
		{"line 5", `target "9" names no earlier message of this import and no row of desk "main"`},
	}
	if diff := cmp.Diff(want, rerr.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if rows := readDesk(t, st, "main"); len(rows) != 0 {
		t.Errorf("the desk holds %d rows after a refused import", len(rows))
	}
}

func importText(ctx context.Context, st Store, text string) (Counts, error) {
	return Import(ctx, st, "main", JSONLines(strings.NewReader(text), int64(len(text))))
}

// TestSlackReimportAfterEdit: a message whose text changed since an earlier import, and
// which Slack marks edited, becomes one edit by its author, keyed by its ts and the edit's;
// a third import adds nothing, nor does the older export again (its older edit is not
// applied again); a message first imported already edited is stored with its text and its
// edit, and the older export imported after it leaves that text.
func TestSlackReimportAfterEdit(t *testing.T) {
	const ts, editedTS = "1714554480.000900", "1714560000.000000"
	edited := exportfixture.Copy(t, slackFixture)
	editSlackDay(t, edited, "general/2024-05-01.json", func(msgs []map[string]any) []map[string]any {
		for _, m := range msgs {
			if m["ts"] == ts {
				m["text"] = "Standup moved to 11:00"
				m["edited"] = map[string]any{"user": "U02BEN", "ts": editedTS}
			}
		}
		return msgs
	})
	ben := transcript.Person("U02BEN", "")
	checkReimportAfterEdit(t, Slack(slackFixture, "general"), Slack(edited, "general"), ts,
		transcript.Message{Author: ben, Content: "Standup moved to 11:00", Key: ts + "/edited/" + editedTS})
}

// TestSlackEditNextToMentionIsNotAlike: a message that begins with a mention, edited since
// the desk stored it to drop the words after the mention, is an edit: the words a
// mention's label may stand for (a user renamed since) do not make the new text alike
// the desk's. The same export again adds nothing.
func TestSlackEditNextToMentionIsNotAlike(t *testing.T) {
	const ts = "1714554480.000900"
	setText := func(text string, edited bool) Source {
		dir := exportfixture.Copy(t, slackFixture)
		editSlackDay(t, dir, "general/2024-05-01.json", func(msgs []map[string]any) []map[string]any {
			for _, m := range msgs {
				if m["ts"] == ts {
					m["text"] = text
					delete(m, "edited")
					if edited {
						m["edited"] = map[string]any{"user": "U02BEN", "ts": "1714560000.000000"}
					}
				}
			}
			return msgs
		})
		return Slack(dir, "general")
	}
	before := setText("<@U01ANA> please do not deploy now", false)
	after := setText("<@U01ANA> deploy now", true)
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			st := sc.open(t)
			if _, err := Import(ctx, st, "main", before); err != nil {
				t.Fatal(err)
			}
			counts, err := Import(ctx, st, "main", after)
			if err != nil {
				t.Fatal(err)
			}
			if got := findKey(t, readDesk(t, st, "main"), ts).Content; got != "@Ana deploy now" || counts.Edited != 1 {
				t.Errorf("after the edited export: counts %+v, the message reads %q; want 1 edit and %q", counts, got, "@Ana deploy now")
			}
			again, err := Import(ctx, st, "main", after)
			if err != nil || again.Added != 0 || again.Edited != 0 {
				t.Errorf("the edited export again: %+v, %v; want nothing new", again, err)
			}
		})
	}
}

// TestDiscordReimportAfterEdit is TestSlackReimportAfterEdit for Discord's
// timestampEdited, whose key is in UTC whatever the offset the exporter wrote.
func TestDiscordReimportAfterEdit(t *testing.T) {
	const id = "1235155503022080017"
	edited := exportfixture.Copy(t, discordFixture)
	editDiscordFile(t, edited, discordChannel, func(x map[string]any) {
		for _, m := range x["messages"].([]any) {
			if m := m.(map[string]any); m["id"] == id {
				m["content"] = "Standup moved to 11:00."
				m["timestampEdited"] = "2024-05-01T12:30:00.5+02:00"
			}
		}
	})
	ben := transcript.Person("422222222222222222", "")
	checkReimportAfterEdit(t, Discord(discordFixture), Discord(edited), id,
		transcript.Message{Author: ben, Content: "Standup moved to 11:00.", Key: id + "/edited/2024-05-01T10:30:00.5Z"})
}

// checkReimportAfterEdit imports before, then after, in which the message key was edited
// to wantEdit's content, later than before's edit of it: the second import adds exactly
// wantEdit, a correction of the message's row, a third adds nothing, and before again adds
// nothing. after imported first stores the message with wantEdit's content and wantEdit,
// and before imported next adds nothing.
func checkReimportAfterEdit(t *testing.T, before, after Source, key string, wantEdit transcript.Message) {
	t.Helper()
	for _, sc := range correctionStores {
		t.Run(sc.name, func(t *testing.T) {
			ctx := t.Context()
			st := sc.open(t)
			first, err := Import(ctx, st, "main", before)
			if err != nil {
				t.Fatal(err)
			}
			rows := readDesk(t, st, "main")
			target := findKey(t, rows, key)
			counts, err := Import(ctx, st, "main", after)
			if want := (Counts{Edited: 1, Present: first.Added}); err != nil || counts != want {
				t.Fatalf("import after the edit: %+v, %v; want %+v", counts, err, want)
			}
			now := readDesk(t, st, "main")
			if len(now) != len(rows)+1 {
				t.Fatalf("the desk holds %d rows, want %d: the edit alone", len(now), len(rows)+1)
			}
			edit := now[len(now)-1]
			wantEdit.Seq, wantEdit.Corrects, wantEdit.At = edit.Seq, target.Seq, edit.At
			ignoreLabels := cmp.Transformer("identity", func(a transcript.Author) string { return a.String() })
			if diff := cmp.Diff(wantEdit, edit, ignoreLabels); diff != "" || edit.At.IsZero() {
				t.Errorf("the edit (-want +got):\n%s(at %v)", diff, edit.At)
			}
			corrected := target
			corrected.Content, corrected.Revised = wantEdit.Content, edit.Seq
			if diff := cmp.Diff(corrected, now[target.Seq-1]); diff != "" {
				t.Errorf("the edited row (-want +got):\n%s", diff)
			}
			others := append([]transcript.Message(nil), now[:len(rows)]...)
			others[target.Seq-1] = target
			if diff := cmp.Diff(rows, others); diff != "" {
				t.Errorf("the import changed other rows (-before +after):\n%s", diff)
			}
			counts, err = Import(ctx, st, "main", after)
			if want := (Counts{Present: first.Added}); err != nil || counts != want {
				t.Errorf("a third import: %+v, %v; want %+v", counts, err, want)
			}
			if n := len(readDesk(t, st, "main")); n != len(now) {
				t.Errorf("a third import: the desk holds %d rows, want %d", n, len(now))
			}
			counts, err = Import(ctx, st, "main", before)
			if want := (Counts{Present: first.Added}); err != nil || counts != want {
				t.Errorf("the older export again: %+v, %v; want %+v", counts, err, want)
			}
			if again := readDesk(t, st, "main"); len(again) != len(now) || again[target.Seq-1].Content != wantEdit.Content {
				t.Errorf("the older export again: %d rows (want %d), the message reads %q (want %q)",
					len(again), len(now), again[target.Seq-1].Content, wantEdit.Content)
			}

			fresh := sc.open(t)
			newer, err := Import(ctx, fresh, "main", after)
			if err != nil {
				t.Fatal(err)
			}
			freshRows := readDesk(t, fresh, "main")
			row, mark := findKey(t, freshRows, key), findKey(t, freshRows, wantEdit.Key)
			if row.Content != wantEdit.Content || row.Revised != mark.Seq || mark.Corrects != row.Seq ||
				mark.Content != wantEdit.Content || !mark.At.Equal(edit.At) || !mark.Author.Same(row.Author) {
				t.Errorf("a first import of the edited export: the message %+v, its edit %+v; want %q, edited at %v", row, mark, wantEdit.Content, edit.At)
			}
			counts, err = Import(ctx, fresh, "main", before)
			if want := (Counts{Present: newer.Added}); err != nil || counts != want {
				t.Errorf("the older export after the newer: %+v, %v; want %+v", counts, err, want)
			}
			if got := findKey(t, readDesk(t, fresh, "main"), key); got.Content != wantEdit.Content {
				t.Errorf("the older export after the newer: the message reads %q, want %q", got.Content, wantEdit.Content)
			}
		})
	}
}

func findKey(t *testing.T, rows []transcript.Message, key string) transcript.Message {
	t.Helper()
	for _, m := range rows {
		if m.Key == key {
			return m
		}
	}
	t.Fatalf("no row with key %q", key)
	return transcript.Message{}
}

// TestCorrectionLines: a line's corrects, corrects_seq, redacted and revised decode as
// MarshalLine writes them.
func TestCorrectionLines(t *testing.T) {
	for _, m := range []transcript.Message{
		{Seq: 4, Author: corrAna, Content: "deploy at 23:00", Corrects: 1, Key: "e"},
		{Seq: 5, Author: transcript.Operator(), Corrects: 1, Redacted: true},
		{Seq: 1, Author: corrAna, Redacted: true, Revised: 5},
		{Seq: 2, Author: corrBen, Content: "build green", Revised: 3},
	} {
		data, err := MarshalLine(m)
		if err != nil {
			t.Fatal(err)
		}
		l, got, err := decodeLine(data)
		if err != nil {
			t.Fatalf("decodeLine(%s): %v", data, err)
		}
		got.Seq, got.Corrects = transcript.Sequence(l.Seq), transcript.Sequence(l.CorrectsSeq)
		if diff := cmp.Diff(m, got); diff != "" || l.Corrects != "" {
			t.Errorf("decodeLine(%s) (-want +got):\n%s", data, diff)
		}
	}
	l, _, err := decodeLine([]byte(`{"author":{"type":"operator"},"content":"","corrects":"k","redacted":true}`))
	if err != nil || l.Corrects != "k" || !l.Redacted {
		t.Errorf("a redaction naming its target by key: %+v, %v", l, err)
	}
	for _, bad := range []string{
		`{"author":{"type":"operator"},"content":"x","corrects_seq":0}`,
		`{"author":{"type":"operator"},"content":"x","corrects":{}}`,
		`{"author":{"type":"operator"},"content":"x","redacted":"yes"}`,
		`{"author":{"type":"operator"},"content":"x","revised":-1}`,
	} {
		if _, _, err := decodeLine([]byte(bad)); err == nil {
			t.Errorf("decodeLine(%s) accepted it", bad)
		}
	}
}
