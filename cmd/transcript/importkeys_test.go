package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/storetest"
)

// Two parts of one desk's history, imported one after the other: part 2's replies name part
// 1's ids, one of them a number, and one answers part 1's aside, leaving its audience to the
// reply rule.
const (
	keysPart1 = `{"id":"p1-root","author":{"type":"person","id":"ana","label":"Ana"},"content":"Deploy #41 is red","at":"2026-11-30T09:00:00Z"}
{"id":"p1-reply","author":{"type":"agent","id":"triage","label":"Triage"},"content":"The migration timed out","parent":"p1-root","at":"2026-11-30T09:01:00Z"}
{"id":"p1-hold","author":{"type":"operator","label":"Olga"},"content":"SECRET-HOLD: keep the deploy on hold","audience":[{"type":"agent","id":"triage","label":"Triage"}]}
{"id":7,"author":{"type":"system","kind":"workflow","label":"CI"},"content":"build #1288 failed"}
`
	keysPart2 = `{"id":"p2-fix","author":{"type":"agent","id":"review","label":"Reviewer"},"content":"Split it in two","parent":"p1-root"}
{"id":"p2-ack","author":{"type":"agent","id":"triage","label":"Triage"},"content":"SECRET-ACK: holding","parent":"p1-hold"}
{"id":"p2-next","author":{"type":"person","id":"bo","label":"Bo"},"content":"Merged the split","parent":"p2-fix"}
{"id":"p2-ci","author":{"type":"system","kind":"workflow","label":"CI"},"content":"build #1289 passed","parent":7}
`
)

// keyedRow is what a test checks of a stored row.
type keyedRow struct {
	Seq, Parent transcript.Sequence
	Key         string
	Audience    []string // participants in the command's syntax
}

func keyedRows(rows []transcript.Message) []keyedRow {
	out := make([]keyedRow, len(rows))
	for i, m := range rows {
		out[i] = keyedRow{Seq: m.Seq, Parent: m.Parent, Key: m.Key}
		for _, a := range m.Audience {
			out[i].Audience = append(out[i].Audience, participantString(a))
		}
	}
	return out
}

func participantString(a transcript.Author) string {
	if a.Kind == transcript.KindOperator {
		return "operator"
	}
	return a.Kind.String() + ":" + a.ID
}

// readDesk reads every row of desk in db through the command's own store, oldest first.
func readDesk(t *testing.T, db, desk string) []transcript.Message {
	t.Helper()
	st, err := dbflag.Flags{DB: db, Desk: desk}.OpenExisting(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	rows, err := storetest.ReadLog(t.Context(), st.Log(desk))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// importSays checks import's summary line.
func importSays(t *testing.T, out, desk string, added, present int) {
	t.Helper()
	want := fmt.Sprintf("imported %s into desk %q (%d already present)\n", plural(added, "new message"), desk, present)
	if out != want {
		t.Errorf("import printed %q, want %q", out, want)
	}
}

// TestImportTwoParts imports a desk's history in two parts, part 2 replying to part 1 by
// its ids; then part 1 again (nothing new), both parts in one file (nothing new), and a file
// that extends them (only its new lines).
func TestImportTwoParts(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		part1, part2 := c.writeFile("part1.jsonl", []byte(keysPart1)), c.writeFile("part2.jsonl", []byte(keysPart2))
		importSays(t, c.ok("import", "--desk", "eng", part1), "eng", 4, 0)
		importSays(t, c.ok("import", "--desk", "eng", part2), "eng", 4, 0)
		want := []keyedRow{
			{Seq: 1, Key: "p1-root"},
			{Seq: 2, Parent: 1, Key: "p1-reply"},
			{Seq: 3, Key: "p1-hold", Audience: []string{"agent:triage"}},
			{Seq: 4, Key: "7"},
			{Seq: 5, Parent: 1, Key: "p2-fix"},
			{Seq: 6, Parent: 3, Key: "p2-ack", Audience: []string{"operator"}}, // the reply rule's
			{Seq: 7, Parent: 5, Key: "p2-next"},
			{Seq: 8, Parent: 4, Key: "p2-ci"},
		}
		rows := readDesk(t, c.db, "eng")
		if diff := cmp.Diff(want, keyedRows(rows)); diff != "" {
			t.Fatalf("the desk after two parts (-want +got):\n%s", diff)
		}

		importSays(t, c.ok("import", "--desk", "eng", part1), "eng", 0, 4)
		importSays(t, c.ok("import", "--desk", "eng", part2), "eng", 0, 4)
		both := c.writeFile("both.jsonl", []byte(keysPart1+keysPart2))
		importSays(t, c.ok("import", "--desk", "eng", both), "eng", 0, 8)
		if diff := cmp.Diff(rows, readDesk(t, c.db, "eng")); diff != "" {
			t.Fatalf("re-imports changed the desk (-before +after):\n%s", diff)
		}

		extended := c.writeFile("extended.jsonl", []byte(keysPart1+keysPart2+
			`{"id":"p3-q","author":{"type":"person","id":"ana","label":"Ana"},"content":"Can we deploy now?","parent":"p1-root"}
{"author":{"type":"agent","id":"triage","label":"Triage"},"content":"Yes","parent":"p3-q"}
{"id":"p3-root","author":{"type":"operator"},"content":"Deploying"}
`))
		importSays(t, c.ok("import", "--desk", "eng", extended), "eng", 3, 8)
		want = append(want, keyedRow{Seq: 9, Parent: 1, Key: "p3-q"}, keyedRow{Seq: 10, Parent: 9}, keyedRow{Seq: 11, Key: "p3-root"})
		if diff := cmp.Diff(want, keyedRows(readDesk(t, c.db, "eng"))); diff != "" {
			t.Errorf("the desk after the extended file (-want +got):\n%s", diff)
		}

		// Part 2 alone, into a desk that lacks part 1: its parents name nothing.
		r := c.want(exitError, "import", "--desk", "other", part2)
		checkReported(t, r, 1, `parent "p1-root" names no earlier message of this import and no row of desk "other"`)
		checkReported(t, r, 2, `parent "p1-hold" names no earlier message`)
		checkReported(t, r, 4, `parent "7" names no earlier message`)
		if strings.Contains(r.stderr, "line 3:") || !strings.Contains(r.stderr, "3 bad lines, nothing was imported") {
			t.Errorf("want lines 1, 2 and 4 reported, and nothing imported:\n%s", r)
		}
		if rows := readDesk(t, c.db, "other"); len(rows) != 0 {
			t.Errorf("a failed import wrote %d rows", len(rows))
		}
	})
}

// TestImportKeyConflict: a line whose id the desk holds for another message fails the import,
// naming the line and the stored row, quoting no content, and nothing is written; a line
// that is the stored message (labels and times aside, an aside's audience in any order)
// is present.
func TestImportKeyConflict(t *testing.T) {
	const newLine = `{"id":"fresh","author":{"type":"operator"},"content":"a new message"}` + "\n"
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("import", c.writeFile("part1.jsonl", []byte(keysPart1)))
		c.ok("import", c.writeFile("part2.jsonl", []byte(keysPart2)))
		before := readDesk(t, c.db, "main")
		for i, tc := range []struct{ name, line, reason string }{
			{"other content", `{"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration passed","parent":"p1-root"}`, `key "p1-reply" already names row 2 of desk "main", which differs in its content`},
			{"another author", `{"id":"p1-reply","author":{"type":"agent","id":"review"},"content":"The migration timed out","parent":"p1-root"}`, `key "p1-reply" already names row 2`},
			{"no parent", `{"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration timed out"}`, `key "p1-reply" already names row 2`},
			{"another parent", `{"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration timed out","parent":"fresh"}`, `key "p1-reply" already names row 2`},
			{"an aside as a desk row", `{"id":"p1-hold","author":{"type":"operator"},"content":"SECRET-HOLD: keep the deploy on hold"}`, `key "p1-hold" already names row 3`},
			{"another audience", `{"id":"p1-hold","author":{"type":"operator"},"content":"SECRET-HOLD: keep the deploy on hold","audience":[{"type":"agent","id":"review"}]}`, `key "p1-hold" already names row 3`},
			{"a reply to the aside with other readers", `{"id":"p2-ack","author":{"type":"agent","id":"triage"},"content":"SECRET-ACK: holding","parent":"p1-hold","audience":[{"type":"agent","id":"review"}]}`, `key "p2-ack" already names row 6`},
			{"a present row replying to a new one", `{"id":"p2-next","author":{"type":"person","id":"bo"},"content":"Merged the split","parent":"fresh"}`, `key "p2-next" already names row 7`},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := &cli{t: t, dir: c.dir, db: c.db}
				r := c.want(exitError, "import", c.writeFile(fmt.Sprintf("conflict%d.jsonl", i), []byte(newLine+tc.line+"\n")))
				checkReported(t, r, 2, tc.reason)
				if strings.Contains(r.stderr, "line 1:") || !strings.Contains(r.stderr, "nothing was imported") || strings.Contains(r.stderr, "SECRET") {
					t.Errorf("want line 2 alone reported, nothing imported, no content quoted:\n%s", r)
				}
			})
		}
		if diff := cmp.Diff(before, readDesk(t, c.db, "main")); diff != "" {
			t.Fatalf("refused imports changed the desk (-before +after):\n%s", diff)
		}

		// The same messages, told differently: other labels and times, the aside's audience
		// named with a label, the reply to the aside naming the audience the rule gave it.
		same := `{"id":"p1-root","author":{"type":"person","id":"ana","label":"Ana Ruiz"},"content":"Deploy #41 is red","at":"2027-01-01T00:00:00Z"}
{"id":"p1-hold","author":{"type":"operator"},"content":"SECRET-HOLD: keep the deploy on hold","audience":[{"type":"agent","id":"triage","label":"T"}]}
{"id":"p2-ack","author":{"type":"agent","id":"triage"},"content":"SECRET-ACK: holding","parent":"p1-hold","audience":[{"type":"operator"}]}
{"id":"p2-next","author":{"type":"person","id":"bo"},"content":"Merged the split","parent":"p2-fix"}
`
		importSays(t, c.ok("import", c.writeFile("same.jsonl", []byte(same))), "main", 0, 4)
		if diff := cmp.Diff(before, readDesk(t, c.db, "main")); diff != "" {
			t.Errorf("importing present rows changed the desk (-before +after):\n%s", diff)
		}
	})
}

// TestImportSeqs: a line's seq must be its row's: a present row at that seq (with the line's
// key, or none), or a new row landing exactly there; parent_seq names a row of the desk or
// an earlier line's seq. Each mismatch is reported with its line, and nothing is written.
func TestImportSeqs(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		r := c.want(exitError, "import", c.writeFile("late.jsonl", []byte(`{"seq":2,"author":{"type":"operator"},"content":"x"}`+"\n")))
		checkReported(t, r, 1, `seq 2, but it would be stored as 1: desk "main" holds 0 rows, and this import adds 0 before it`)

		c.ok("import", c.writeFile("part1.jsonl", []byte(keysPart1)))
		c.ok("import", c.writeFile("unkeyed.jsonl", []byte(`{"author":{"type":"person","id":"bo"},"content":"no key"}`+"\n")))
		before := readDesk(t, c.db, "main")
		for i, tc := range []struct {
			name, line, reason string
			at                 int // the line reported
		}{
			{"a key at another seq", `{"seq":3,"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration timed out","parent_seq":1}`, `key "p1-reply" is row 2 of desk "main", not seq 3`, 2},
			{"a keyed row without its key", `{"seq":4,"author":{"type":"system","kind":"workflow"},"content":"build #1288 failed"}`, `seq 4 is a row of desk "main" with the key "7", and this one has no key`, 2},
			{"an unkeyed row given a key", `{"seq":5,"id":"bo-1","author":{"type":"person","id":"bo"},"content":"no key"}`, `seq 5 is a row of desk "main" without a key, not "bo-1"`, 2},
			{"a new key at a taken seq", `{"seq":4,"id":"other","author":{"type":"system","kind":"workflow"},"content":"build #1288 failed"}`, `seq 4 is a row of desk "main" with the key "7", not "other"`, 2},
			{"another message at a seq", `{"seq":5,"author":{"type":"person","id":"bo"},"content":"a key"}`, `seq 5 is a row of desk "main" that differs in its content`, 2},
			{"a new row past the head", `{"seq":9,"author":{"type":"operator"},"content":"x"}`, `seq 9, but it would be stored as 7: desk "main" holds 5 rows, and this import adds 1 before it`, 2},
			{"a parent_seq past the head", `{"author":{"type":"operator"},"content":"x","parent_seq":6}`, `parent seq 6 names no row of desk "main" \(its head is 5\) and no earlier message of this import`, 2},
			{"a parent_seq of a later line", `{"author":{"type":"operator"},"content":"x","parent_seq":7}` + "\n" + `{"seq":7,"author":{"type":"operator"},"content":"y"}`, `parent seq 7 is the seq of line 3, a later message`, 2},
			{"one seq twice", `{"seq":6,"author":{"type":"operator"},"content":"x"}` + "\n" + `{"seq":6,"author":{"type":"operator"},"content":"x"}`, `seq 6 is also the seq of line 2`, 3},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := &cli{t: t, dir: c.dir, db: c.db}
				file := `{"author":{"type":"operator"},"content":"first"}` + "\n" + tc.line + "\n"
				r := c.want(exitError, "import", c.writeFile(fmt.Sprintf("seq%d.jsonl", i), []byte(file)))
				checkReported(t, r, tc.at, tc.reason)
				if strings.Contains(r.stderr, "line 1:") {
					t.Errorf("a good line reported:\n%s", r)
				}
			})
		}
		if diff := cmp.Diff(before, readDesk(t, c.db, "main")); diff != "" {
			t.Fatalf("refused imports changed the desk (-before +after):\n%s", diff)
		}

		// Rows at their seqs: present ones, and new ones landing where they say, one replying
		// to another by parent_seq.
		good := `{"seq":2,"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration timed out","parent_seq":1}
{"seq":5,"author":{"type":"person","id":"bo"},"content":"no key"}
{"seq":6,"author":{"type":"operator"},"content":"six"}
{"author":{"type":"operator"},"content":"seven","parent_seq":6}
{"seq":8,"id":"eight","author":{"type":"operator"},"content":"eight","parent_seq":2}
`
		importSays(t, c.ok("import", c.writeFile("good.jsonl", []byte(good))), "main", 3, 2)
		want := append(keyedRows(before), keyedRow{Seq: 6}, keyedRow{Seq: 7, Parent: 6}, keyedRow{Seq: 8, Parent: 2, Key: "eight"})
		if diff := cmp.Diff(want, keyedRows(readDesk(t, c.db, "main"))); diff != "" {
			t.Errorf("the desk after rows at their seqs (-want +got):\n%s", diff)
		}
	})
}

// TestExportImportKeys: an export imports into an empty desk (of the same database or
// another) as the same rows, field by field: seqs, keys, parents, audiences, authors,
// contents, times; and into its own desk as nothing new.
func TestExportImportKeys(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("import", c.writeFile("part1.jsonl", []byte(keysPart1)))
		c.ok("import", c.writeFile("asides.jsonl", []byte(asideDesk))) // unkeyed rows too, and the reply rule
		c.ok("import", c.writeFile("part2.jsonl", []byte(keysPart2)))
		rows := readDesk(t, c.db, "main")
		exported := c.ok("export")
		if n := strings.Count(exported, "\n"); n != len(rows) || n != 18 {
			t.Fatalf("export wrote %d lines for %d rows, want 18", n, len(rows))
		}
		path := c.writeFile("export.jsonl", []byte(exported))
		sameRows := func(what string, got []transcript.Message) {
			t.Helper()
			if diff := cmp.Diff(rows, got, cmpopts.EquateApproxTime(time.Microsecond)); diff != "" {
				t.Errorf("%s (-exported +imported):\n%s", what, diff)
			}
		}

		importSays(t, c.ok("import", "--desk", "copy", path), "copy", 18, 0)
		sameRows("the export imported into an empty desk", readDesk(t, c.db, "copy"))
		other := newCLI(t, newDB(t))
		importSays(t, other.ok("import", path), "main", 18, 0)
		sameRows("the export imported into another database", readDesk(t, other.db, "main"))

		importSays(t, c.ok("import", path), "main", 0, 18)
		importSays(t, c.ok("import", "--desk", "copy", path), "copy", 0, 18)
		sameRows("the export imported into its own desk", readDesk(t, c.db, "main"))
		if again := c.ok("export"); again != exported {
			t.Errorf("importing an export into its own desk changed the export:\n%s\nthen:\n%s", exported, again)
		}

		// The export, extended with new lines that reply by parent_seq and by id.
		extended := exported + `{"author":{"type":"operator"},"content":"after the export","parent_seq":1}
{"seq":20,"id":"p4","author":{"type":"operator"},"content":"at its seq","parent":"p2-fix"}
`
		importSays(t, c.ok("import", c.writeFile("extended.jsonl", []byte(extended))), "main", 2, 18)
		got := keyedRows(readDesk(t, c.db, "main")[18:])
		if diff := cmp.Diff([]keyedRow{{Seq: 19, Parent: 1}, {Seq: 20, Parent: 15, Key: "p4"}}, got); diff != "" {
			t.Errorf("the extended export's new rows (-want +got):\n%s", diff)
		}
	})
}

// TestImportRowsAllReported: what is wrong with lines against each other and the desk is
// reported for every such line at once, in line order, and nothing is written.
func TestImportRowsAllReported(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		c.ok("import", c.writeFile("part1.jsonl", []byte(keysPart1)))
		before := readDesk(t, c.db, "main")
		file := `{"id":"ok","author":{"type":"operator"},"content":"fine"}
{"id":"p1-root","author":{"type":"person","id":"ana"},"content":"changed"}
{"author":{"type":"operator"},"content":"x","parent":"nope"}
{"id":"ok","author":{"type":"operator"},"content":"fine"}
{"author":{"type":"operator"},"content":"x","parent":"later"}
{"id":"later","author":{"type":"operator"},"content":"x"}
{"seq":9,"author":{"type":"operator"},"content":"x"}
{"author":{"type":"operator"},"content":"fine, replying to a desk row","parent":"p1-reply"}
`
		r := c.want(exitError, "import", c.writeFile("bad.jsonl", []byte(file)))
		for line, reason := range map[int]string{
			2: `key "p1-root" already names row 1`,
			3: `parent "nope" names no earlier message`,
			4: `key "ok" is also the key of line 1`,
			5: `parent "later" is the key of line 6, a later message`,
			7: `seq 9, but it would be stored as 10`,
		} {
			checkReported(t, r, line, reason)
		}
		if !strings.Contains(r.stderr, "5 bad lines, nothing was imported") || strings.Contains(r.stderr, "line 8:") {
			t.Errorf("want 5 bad lines and nothing imported:\n%s", r)
		}
		if i, j := strings.Index(r.stderr, "line 2:"), strings.Index(r.stderr, "line 4:"); i < 0 || j < i {
			t.Errorf("the bad messages are not listed in line order:\n%s", r)
		}
		if diff := cmp.Diff(before, readDesk(t, c.db, "main")); diff != "" {
			t.Errorf("a refused import changed the desk (-before +after):\n%s", diff)
		}
	})
}

// TestImportKeysInProcess runs a two-part import and a re-import in this process, so that
// the race detector sees storeRows.
func TestImportKeysInProcess(t *testing.T) {
	t.Parallel()
	db := t.TempDir() + "/desk.db"
	for _, step := range []struct {
		in, want string
	}{
		{keysPart1, `imported 4 new messages into desk "main" (0 already present)`},
		{keysPart2, `imported 4 new messages into desk "main" (0 already present)`},
		{keysPart1 + keysPart2, `imported 0 new messages into desk "main" (8 already present)`},
	} {
		code, stdout, stderr := runInProcess(step.in, "import", "--db", db, "-")
		if code != exitOK || stdout != step.want+"\n" {
			t.Errorf("import: exit %d, %q, %s; want %q", code, stdout, stderr, step.want)
		}
	}
	code, stdout, stderr := runInProcess("", "export", "--db", db)
	if code != exitOK {
		t.Fatalf("export: exit %d: %s", code, stderr)
	}
	if code, out, stderr := runInProcess(stdout, "import", "--db", db, "-"); code != exitOK || !strings.Contains(out, "0 new messages") {
		t.Errorf("import of the export into its own desk: exit %d, %q, %s", code, out, stderr)
	}
}

// TestImportLooksKeysUp runs the two-part import into a desk much bigger than the files, so
// that import looks their keys up (LookupKeys) instead of reading the desk whole: the same
// rows, counts and refusals as TestImportTwoParts, TestImportKeyConflict and TestImportSeqs.
func TestImportLooksKeysUp(t *testing.T) {
	const filler = 300
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		var file strings.Builder
		for i := range filler {
			fmt.Fprintf(&file, `{"author":{"type":"agent","id":"scribe"},"content":"filler %d"}`+"\n", i)
		}
		c.ok("import", c.writeFile("filler.jsonl", []byte(file.String())))
		const f = filler
		part1, part2 := c.writeFile("part1.jsonl", []byte(keysPart1)), c.writeFile("part2.jsonl", []byte(keysPart2))
		importSays(t, c.ok("import", part1), "main", 4, 0)
		importSays(t, c.ok("import", part2), "main", 4, 0)
		want := []keyedRow{
			{Seq: f + 1, Key: "p1-root"},
			{Seq: f + 2, Parent: f + 1, Key: "p1-reply"},
			{Seq: f + 3, Key: "p1-hold", Audience: []string{"agent:triage"}},
			{Seq: f + 4, Key: "7"},
			{Seq: f + 5, Parent: f + 1, Key: "p2-fix"},
			{Seq: f + 6, Parent: f + 3, Key: "p2-ack", Audience: []string{"operator"}},
			{Seq: f + 7, Parent: f + 5, Key: "p2-next"},
			{Seq: f + 8, Parent: f + 4, Key: "p2-ci"},
		}
		rows := readDesk(t, c.db, "main")
		if diff := cmp.Diff(want, keyedRows(rows[f:])); diff != "" {
			t.Fatalf("the desk after two parts (-want +got):\n%s", diff)
		}
		importSays(t, c.ok("import", part2), "main", 0, 4) // p2-ack's audience is the reply rule's
		importSays(t, c.ok("import", part1), "main", 0, 4)

		for _, tc := range []struct{ name, file, reason string }{
			{"other content", `{"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"changed","parent":"p1-root"}`, fmt.Sprintf(`key "p1-reply" already names row %d of desk "main", which differs`, f+2)},
			{"a missing parent", `{"author":{"type":"operator"},"content":"x","parent":"nope"}`, `parent "nope" names no earlier message of this import and no row of desk "main"`},
			{"a key at another seq", fmt.Sprintf(`{"seq":%d,"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration timed out","parent":"p1-root"}`, f+3), fmt.Sprintf(`key "p1-reply" is row %d of desk "main", not seq %d`, f+2, f+3)},
			{"another message at a seq", `{"seq":5,"author":{"type":"agent","id":"scribe"},"content":"not filler"}`, `seq 5 is a row of desk "main" that differs`},
			{"a key at an unkeyed seq", `{"seq":5,"id":"k","author":{"type":"agent","id":"scribe"},"content":"filler 4"}`, `seq 5 is a row of desk "main" without a key, not "k"`},
		} {
			r := c.want(exitError, "import", c.writeFile("bad.jsonl", []byte(tc.file+"\n")))
			checkReported(t, r, 1, tc.reason)
		}
		if diff := cmp.Diff(rows, readDesk(t, c.db, "main")); diff != "" {
			t.Fatalf("re-imports and refusals changed the desk (-before +after):\n%s", diff)
		}
		present := fmt.Sprintf(`{"seq":5,"author":{"type":"agent","id":"scribe"},"content":"filler 4"}
{"seq":%d,"id":"p1-reply","author":{"type":"agent","id":"triage"},"content":"The migration timed out","parent_seq":%d}
{"id":"p3","author":{"type":"operator"},"content":"new","parent":"p2-ci"}
`, f+2, f+1)
		importSays(t, c.ok("import", c.writeFile("present.jsonl", []byte(present))), "main", 1, 2)
		if got := keyedRows(readDesk(t, c.db, "main")[f+8:]); !cmp.Equal(got, []keyedRow{{Seq: f + 9, Parent: f + 8, Key: "p3"}}) {
			t.Errorf("the new row: %+v", got)
		}
	})
}
