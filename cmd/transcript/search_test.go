package main

import (
	"database/sql"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/dirsum"
	"github.com/sharedesk/transcript/server"
	"github.com/sharedesk/transcript/sqlitestore"
)

// searchDesk is a desk in the import format for the search tests: a thread of four rows on
// a migration, a reply to a reply, another thread, and a CI notice of two lines. Row n of
// the file becomes Seq n.
//
//	1 ana                  root      "Deploy #41 is red: the migration step hangs"
//	2 triage ↳ 1           reply     "The migration timed out waiting for a lock"
//	3 review ↳ 1           reply     "Move the migration after the nightly report"
//	4 bo                   root      "Who is on call? Ana or Bo"
//	5 triage ↳ 4           reply     "Ana is primary, per the rota"
//	6 CI                   root      "migration dry run passed" / "on staging"
//	7 review ↳ 2           reply to a reply  "A Migration lock, yes"
const searchDesk = `{"id":"red","author":{"type":"person","id":"ana","label":"Ana"},"content":"Deploy #41 is red: the migration step hangs"}
{"author":{"type":"agent","id":"triage","label":"Triage"},"content":"The migration timed out waiting for a lock","parent":"red","id":"lock"}
{"author":{"type":"agent","id":"review","label":"Reviewer"},"content":"Move the migration after the nightly report","parent":"red"}
{"id":"oncall","author":{"type":"person","id":"bo","label":"Bo"},"content":"Who is on call? Ana or Bo"}
{"author":{"type":"agent","id":"triage","label":"Triage"},"content":"Ana is primary, per the rota","parent":"oncall"}
{"author":{"type":"system","kind":"ci","label":"CI"},"content":"migration dry run passed\non staging"}
{"author":{"type":"agent","id":"review","label":"Reviewer"},"content":"A Migration lock, yes","parent":"lock"}
`

// searchJSONOut is what search --format json writes: the service's answer.
type searchJSONOut = server.SearchAnswer

// TestSearch runs search on searchDesk in every format: hits newest first, the words found
// marked in text, a thread's scope, pages through --limit and --before to the end, flags
// after the words, words after "--", and a thread the viewer may not name.
func TestSearch(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("import", c.writeFile("search.jsonl", []byte(searchDesk)))

		hits := func(args ...string) searchJSONOut {
			t.Helper()
			args = append([]string{"search", "--format", "json"}, args...)
			return decode[searchJSONOut](t, strings.Join(args, " "), c.ok(args...))
		}
		for _, tc := range []struct {
			args []string
			want []transcript.Sequence
			next transcript.Sequence
		}{
			{[]string{"migration"}, []transcript.Sequence{7, 6, 3, 2, 1}, 0},
			{[]string{"MIGRATION", "Lock"}, []transcript.Sequence{7, 2}, 0},
			{[]string{"--thread", "1", "migration"}, []transcript.Sequence{3, 2, 1}, 0},
			{[]string{"--thread", "2", "migration"}, []transcript.Sequence{7, 2}, 0},
			{[]string{"--thread", "4", "migration"}, nil, 0},
			{[]string{"--limit", "2", "migration"}, []transcript.Sequence{7, 6}, 6},
			{[]string{"--limit", "2", "--before", "6", "migration"}, []transcript.Sequence{3, 2}, 2},
			{[]string{"--limit", "2", "--before", "2", "migration"}, []transcript.Sequence{1}, 0},
			{[]string{"--before", "2", "--thread", "1", "migration"}, []transcript.Sequence{1}, 0},
			{[]string{"staging", "passed"}, []transcript.Sequence{6}, 0},
			{[]string{"migrations"}, nil, 0},
			{[]string{"--as", "agent:nobody", "rota"}, []transcript.Sequence{5}, 0},
		} {
			got := hits(tc.args...)
			wantSeqs(t, strings.Join(tc.args, " "), got.Messages, tc.want)
			if got.Next != tc.next {
				t.Errorf("search %v: next %d, want %d", tc.args, got.Next, tc.next)
			}
			if got.Messages == nil {
				t.Errorf("search %v: messages is null, want a list", tc.args)
			}
		}

		// Paging to the end through next: every hit once, newest first.
		var paged []transcript.Message
		for before, pages := "0", 0; ; pages++ {
			if pages > 5 {
				t.Fatalf("paging did not end: %v so far", seqs(paged))
			}
			page := hits("--limit", "1", "--before", before, "migration")
			paged = append(paged, page.Messages...)
			if page.Next == 0 {
				break
			}
			before = fmt.Sprint(page.Next)
		}
		wantSeqs(t, "paging by one", paged, []transcript.Sequence{7, 6, 3, 2, 1})

		// Text: one line a hit, the words found marked, and how to get the older ones.
		got := c.ok("search", "--as", "agent:triage", "--limit", "3", "migration")
		want := "#7 Reviewer (agent:review) ↳ #2: A «Migration» lock, yes\n" +
			"#6 CI (system:ci): «migration» dry run passed ↵ on staging\n" +
			"#3 Reviewer (agent:review) ↳ #1: Move the «migration» after the nightly report\n" +
			"older hits: search again with --before 3\n"
		if got != want {
			t.Errorf("search --limit 3 in text:\n%s\nwant\n%s", got, want)
		}
		if got, want := c.ok("search", "--as", "agent:triage", "lock", "timed"), "#2 Triage (agent:triage, you) ↳ #1: The migration «timed» out waiting for a «lock»\n"; got != want {
			t.Errorf("search for Triage's own row in text: %q, want %q", got, want)
		}
		if got, want := c.ok("search", "nothing", "matches"), "no message operator may read holds all these words\n"; got != want {
			t.Errorf("search with no hit in text: %q, want %q", got, want)
		}
		if got, want := c.ok("search", "--format", "json", "nothing"), "{\n  \"messages\": [],\n  \"next\": 0\n}\n"; got != want {
			t.Errorf("search with no hit in json: %q, want %q", got, want)
		}

		// The model formats: the hits as a view renders them, oldest first, the viewer's own
		// rows its assistant turns.
		openai := decode[[]openAIJSON](t, "search --format openai", c.ok("search", "--as", "agent:triage", "--format", "openai", "--thread", "1", "migration"))
		if len(openai) != 3 || openai[1].Role != "assistant" || openai[1].Content != "The migration timed out waiting for a lock" ||
			!strings.Contains(openai[0].Content, `<message seq="1"`) || !strings.Contains(openai[2].Content, `<message seq="3"`) {
			t.Errorf("search --format openai: %+v, want rows 1, 2 (Triage's own, an assistant turn) and 3", openai)
		}
		anthropic := decode[[]anthropicJSON](t, "search --format anthropic", c.ok("search", "--as", "agent:triage", "--format", "anthropic", "--thread", "1", "migration"))
		var text strings.Builder
		for _, m := range anthropic {
			for _, b := range m.Content {
				text.WriteString(b.Text)
			}
		}
		if !strings.Contains(text.String(), "nightly report") || !strings.Contains(text.String(), "The migration timed out") ||
			strings.Index(text.String(), `<message seq="1"`) > strings.Index(text.String(), `<message seq="3"`) {
			t.Errorf("search --format anthropic: %+v, want rows 1 to 3, oldest first", anthropic)
		}

		// Flags after the words are flags; words that start with "-" go after "--".
		first := c.ok("search", "--as", "agent:triage", "--thread", "1", "--format", "json", "migration")
		for _, args := range [][]string{
			{"search", "migration", "--as", "agent:triage", "--thread", "1", "--format", "json"},
			{"search", "--as", "agent:triage", "migration", "--thread=1", "--format", "json"},
			{"search", "--as", "agent:triage", "--thread", "1", "--format", "json", "--", "-migration"},
		} {
			if got := c.ok(args...); got != first {
				t.Errorf("%v: %s\nwant what the flags before the words give:\n%s", args, got, first)
			}
		}

		// A thread the viewer may not name is refused as a missing row, without the desk's
		// newest row; and so is a correction, which is no thread, as view --thread and the
		// service refuse it.
		r := c.want(exitError, "search", "--thread", "99", "migration")
		if want := "transcript: search --thread: desk \"main\" holds no thread #99 that operator may read\n"; r.stderr != want || r.stdout != "" {
			t.Errorf("search --thread 99: %s\nwant only %q on standard error", r, want)
		}
		edit := c.ok("edit", "--as", "person:ana", "1", "the migration moved to Friday")
		correction := strings.TrimPrefix(strings.Fields(edit)[0], "#")
		r = c.want(exitError, "search", "--thread", correction, "migration")
		if want := "transcript: search --thread: desk \"main\" holds no thread #" + correction + " that operator may read\n"; r.stderr != want || r.stdout != "" {
			t.Errorf("search --thread %s (a correction): %s\nwant only %q on standard error", correction, r, want)
		}
		if r := c.want(exitError, "search", "--desk", "nosuch", "migration"); !strings.Contains(r.stderr, `no desk "nosuch"`) {
			t.Errorf("search --desk nosuch: %s", r)
		}
	})
}

// unspacedDesk is a desk in the import format whose rows are written in Japanese and
// Korean, without spaces between words:
//
//	1 ana     "移行は22時に実行します。マイグレーション確認済み"
//	2 triage  "行移 と 時" (the characters of "移行", in the other order)
//	3 bo      "데이터베이스 이전은 끝났습니다"
const unspacedDesk = `{"author":{"type":"person","id":"ana","label":"Ana"},"content":"移行は22時に実行します。マイグレーション確認済み"}
{"author":{"type":"agent","id":"triage","label":"Triage"},"content":"行移 と 時"}
{"author":{"type":"person","id":"bo","label":"Bo"},"content":"데이터베이스 이전은 끝났습니다"}
`

// TestSearchUnspaced: search finds a row in Japanese by its words, a number beside a
// character, and a word in Katakana, on every backend; two characters are found where they
// stand in that order only; and the text format marks the words found, not the whole run.
func TestSearchUnspaced(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("import", c.writeFile("unspaced.jsonl", []byte(unspacedDesk)))
		for _, tc := range []struct {
			words []string
			want  []transcript.Sequence
		}{
			{[]string{"移行"}, []transcript.Sequence{1}},
			{[]string{"22時"}, []transcript.Sequence{1}},
			{[]string{"実行"}, []transcript.Sequence{1}},
			{[]string{"マイグレーション"}, []transcript.Sequence{1}},
			{[]string{"確認済み", "移行"}, []transcript.Sequence{1}},
			{[]string{"時"}, []transcript.Sequence{2, 1}},
			{[]string{"行移"}, []transcript.Sequence{2}},
			{[]string{"移行する"}, nil},
			{[]string{"데이터베이스"}, []transcript.Sequence{3}},
			{[]string{"이전"}, []transcript.Sequence{3}},
			{[]string{"이데"}, nil},
		} {
			args := append([]string{"search", "--format", "json"}, tc.words...)
			got := decode[searchJSONOut](t, strings.Join(args, " "), c.ok(args...))
			wantSeqs(t, strings.Join(args, " "), got.Messages, tc.want)
		}
		for words, want := range map[string]string{
			"移行":       "#1 Ana (person:ana): «移行»は22時に実行します。マイグレーション確認済み\n",
			"22時":      "#1 Ana (person:ana): 移行は«22時»に実行します。マイグレーション確認済み\n",
			"マイグレーション": "#1 Ana (person:ana): 移行は22時に実行します。«マイグレーション»確認済み\n",
		} {
			if got := c.ok("search", words); got != want {
				t.Errorf("search %s in text: %q, want %q", words, got, want)
			}
		}
	})
}

// TestSearchRefusesWithoutQuoting: a search the rules refuse (no word, more than 16 words,
// a word longer than 64 bytes) is a usage error that says which rule, and never quotes the
// words, which may be anything the user typed.
func TestSearchRefusesWithoutQuoting(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	long := "hunter2" + strings.Repeat("x", transcript.MaxTermBytes)
	many := append([]string{"hunter2"}, distinctWords(transcript.MaxSearchTerms)...)
	for _, tc := range []struct {
		args   []string
		stderr string
	}{
		{[]string{"search", "--", "-- ?!"}, "transcript: usage: search: the text holds no word: give 1 to 16 words, each at most 64 bytes long\n"},
		{append([]string{"search"}, many...), "transcript: usage: search: the text holds 17 words, above the limit of 16: give 1 to 16 words, each at most 64 bytes long\n"},
		{[]string{"search", "hello", long}, "transcript: usage: search: a word is 71 bytes long, above the limit of 64: give 1 to 16 words, each at most 64 bytes long\n"},
	} {
		r := c.want(exitUsage, tc.args...)
		if r.stderr != tc.stderr || r.stdout != "" {
			t.Errorf("%v: %s\nwant only %q on standard error", tc.args, r, tc.stderr)
		}
	}
}

// TestSearchLeavesAnOlderStore: search opens the store read-only, as view does, so a store
// an older version of the command made (its schema one version behind: without the search
// index) is not migrated by it: search says which commands migrate it, and not a byte of
// the directory changes.
func TestSearchLeavesAnOlderStore(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	older := c.path("older.db")
	db, err := sql.Open("sqlite", "file:"+older)
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob("../../sqlitestore/migrations/*.sql")
	if err != nil || len(files) != sqlitestore.SchemaVersion {
		t.Fatalf("the store's migrations: %v, %v; want %d files", files, err, sqlitestore.SchemaVersion)
	}
	version := sqlitestore.SchemaVersion - 1
	steps := []string{`CREATE TABLE schema_version (version INTEGER NOT NULL)`, fmt.Sprintf(`INSERT INTO schema_version (version) VALUES (%d)`, version)}
	for _, f := range files[:version] {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, string(data))
	}
	for _, step := range append(steps, `PRAGMA journal_mode = WAL`) {
		if _, err := db.Exec(step); err != nil {
			t.Fatalf("making a store at schema version %d: %v", version, err)
		}
	}
	db.Close()

	before := dirsum.Of(t, c.dir)
	for _, args := range [][]string{{"view"}, {"search", "hello"}} {
		r := c.want(exitError, withDB(args, older)...)
		if want := fmt.Sprintf("older than %d, and a command that only reads does not migrate it (%s migrates it)\n", sqlitestore.SchemaVersion, dbflag.CreatingCommands); !strings.HasSuffix(r.stderr, want) {
			t.Errorf("%s of a store at schema version %d: %s\nwant it to end %q", args[0], version, r, want)
		}
		if after := dirsum.Of(t, c.dir); !maps.Equal(before, after) {
			t.Errorf("%s of a store at schema version %d changed the directory", args[0], version)
		}
	}
}

// TestAppendTellsOfIndexRebuild: a writing command that rebuilds a file's search index (as
// the migration to the keyed index does, here because the index's terms version is stale)
// says so on standard error, and the rows are found afterwards.
func TestAppendTellsOfIndexRebuild(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "desk.db")
	if code, _, stderr := runInProcess(searchDesk, "import", "--db", db, "-"); code != exitOK {
		t.Fatalf("import: exit %d\n%s", code, stderr)
	}
	raw, err := sql.Open("sqlite", "file:"+db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE message_terms_version SET version = 'stale'`); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	code, _, stderr := runInProcess("deploy again\n", "append", "--db", db, "--as", "agent:x")
	if code != exitOK || !strings.Contains(stderr, "rebuilding the search index of "+db) {
		t.Fatalf("append after the terms version changed: exit %d, stderr %q; want a line of the rebuild", code, stderr)
	}
	code, stdout, stderr := runInProcess("", "search", "--db", db, "--as", "agent:x", "--format", "json", "migration")
	if code != exitOK || !strings.Contains(stdout, `"seq": 1,`) {
		t.Errorf("search after the rebuild: exit %d, %s%s", code, stdout, stderr)
	}
}
