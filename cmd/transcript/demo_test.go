package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/demodesk"
	"github.com/sharedesk/transcript/render"
)

// TestDemoDefaultDB runs the demo the way the README does: in a fresh directory, with the
// default ./transcript.db, twice. The second run adds nothing to the desk and shows it again,
// as the first did.
func TestDemoDefaultDB(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	first := checkDemo(t, c, "Built desk")
	if !fileExists(c.path(dbflag.Default)) {
		t.Errorf("demo left no %s in its working directory", dbflag.Default)
	}
	rows := c.ok("export", "--desk", demoDesk)
	second := checkDemo(t, c, `Desk "demo" already holds the demo`)
	if again := c.ok("export", "--desk", demoDesk); again != rows {
		t.Errorf("the second run changed the desk: %d rows before it, %d after", strings.Count(rows, "\n"), strings.Count(again, "\n"))
	}
	for _, shown := range readmeBlocks(t, "text") { // the README's excerpts of the demo
		if !strings.Contains(first, shown) {
			t.Errorf("the README shows the demo printing\n%s\nbut it prints:\n%s", shown, clip(first))
		}
	}
	if a, b := demoBody(first), demoBody(second); a != b {
		t.Errorf("the second run shows another desk than the first:\nfirst:\n%s\nsecond:\n%s", a, b)
	}
}

func TestDemo(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		out := checkDemo(t, c, "Built desk")
		checkDemo(t, c, `Desk "demo" already holds the demo`)

		// The elision in Reviewer's column is the line view prints for it.
		_, marks := demodesk.Scenario()
		view := c.ok("view", "--desk", demoDesk, "--as", "agent:review", "--window", "8", "--before", fmt.Sprint(marks.Question))
		i := strings.Index(view, fmt.Sprintf("\n#%d ", marks.Aside))
		if i < 0 {
			t.Fatalf("view as Reviewer shows no line for the aside #%d:\n%s", marks.Aside, view)
		}
		line, _, _ := strings.Cut(view[i+1:], "\n")
		if _, cols := demoTable(t, out, "The channel"); !slices.Contains(cols[1], line) {
			t.Errorf("Reviewer's column does not show the aside as view does, %q:\n%q", line, cols[1])
		}

		// The digest the reinitialization shows is the block Scribe's view --digest begins with.
		withDigest := c.ok("view", "--desk", demoDesk, "--as", "agent:scribe", "--window", "8", "--digest")
		block, _, _ := strings.Cut(withDigest, "\n#")
		if !strings.HasPrefix(block, "Digest of the channel through #") || !strings.Contains(out, "\n  "+strings.ReplaceAll(strings.TrimSuffix(block, "\n"), "\n", "\n  ")+"\n\n") {
			t.Errorf("the demo does not show the digest Scribe's view --digest begins with:\n%s\ndemo:\n%s", block, clip(out))
		}

		// A desk that holds something else is left alone.
		c.ok("append", "--desk", "other", "--create", "not the demo")
		r := c.want(exitError, "demo", "--desk", "other")
		if !strings.Contains(r.stderr, "already holds other messages") {
			t.Errorf("demo on a foreign desk: want a clear error, got:\n%s", r)
		}
		if got := c.ok("export", "--desk", "other"); strings.Count(got, "\n") != 1 {
			t.Errorf("demo on a foreign desk changed it: export is\n%s", got)
		}
	})
}

// TestDemoNarrowTerminal: on a terminal too narrow for a cell, the cell takes more lines of
// its column, no line is wider than the terminal, and a cell too long for demodesk.MaxCellLines is cut
// with the marker.
func TestDemoNarrowTerminal(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	e := newEnv(strings.NewReader(""), &stdout, &stderr)
	e.width = 80
	if code := run(context.Background(), []string{"demo", "--db", filepath.Join(t.TempDir(), "demo.db")}, e); code != exitOK {
		t.Fatalf("demo: exit %d\n%s", code, stderr.String())
	}
	out := stdout.String()
	_, marks := demodesk.Scenario()
	lines, cols := demoTable(t, out, "The channel")
	for _, line := range lines {
		if n := utf8.RuneCountInString(line); n > e.width {
			t.Errorf("a line of %d runes on a terminal of %d:\n%s", n, e.width, line)
		}
	}
	start := fmt.Sprintf("#%d Operator: Triage, between us:", marks.Aside)
	i := slices.IndexFunc(cols[0], func(c string) bool { return strings.HasPrefix(c, start) })
	if i < 0 || !strings.HasSuffix(cols[0][i], demodesk.CutMarker) {
		t.Errorf("Triage's column at width %d: want the operator's aside cut with %q, got:\n%q", e.width, demodesk.CutMarker, cols[0])
	}
	for _, c := range cols[0] {
		if strings.HasPrefix(c, "#2332 ") && strings.HasSuffix(c, demodesk.CutMarker) {
			t.Errorf("a cell that fits in %d lines is cut: %q", demodesk.MaxCellLines, c)
		}
	}
}

var (
	peerReplyRE = regexp.MustCompile(`Meanwhile Reviewer replies \(#(\d+)\)`)
	turn2RE     = regexp.MustCompile(`Turn 2: Triage's delta holds (.*?), not its own reply`)
	turnRE      = regexp.MustCompile(`(?m)^  (user|assistant|system):`)
	doneRE      = regexp.MustCompile(`(?m)^Done in .*$`)
)

// demoBody is the demo's output without its first paragraph (built, or already there) and
// its timing.
func demoBody(out string) string {
	_, body, _ := strings.Cut(out, "\n\n")
	return doneRE.ReplaceAllString(body, "Done in")
}

// checkDemo runs the demo with c, checks what it shows, and returns its output.
func checkDemo(t *testing.T, c *cli, build string) string {
	t.Helper()
	out := c.ok("demo")
	if !strings.HasPrefix(out, build) {
		t.Errorf("demo output starts with %.60q, want %q", out, build)
	}
	for _, agent := range []string{"Triage", "Reviewer", "Scribe"} {
		if !strings.Contains(out, agent+" sees") {
			t.Errorf("demo does not show what %s sees:\n%s", agent, clip(out))
		}
	}
	checkDemoAside(t, out)
	checkDemoWords(t, out)
	_, marks := demodesk.Scenario()
	m := peerReplyRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo does not say when Reviewer replies:\n%s", clip(out))
	}
	seq := m[1]
	if seq != fmt.Sprint(marks.PeerReply) {
		t.Errorf("Reviewer's reply is #%s, want the scenario's #%d", seq, marks.PeerReply)
	}
	d := turn2RE.FindStringSubmatch(out)
	if d == nil {
		t.Fatalf("demo does not show Triage's second delta:\n%s", clip(out))
	}
	if want := "#" + seq + " (Reviewer)"; d[1] != want {
		t.Errorf("Triage's second delta holds %s, want only Reviewer's reply, %s", d[1], want)
	}

	// The turns Triage's model reads: one user turn, Reviewer's reply in its envelope.
	cycle := out[strings.Index(out, d[0]):]
	if end := strings.Index(cycle, "A reinitialization"); end >= 0 {
		cycle = cycle[:end]
	}
	turns := turnRE.FindAllStringSubmatch(cycle, -1)
	if len(turns) != 1 || turns[0][1] != "user" {
		t.Errorf("Triage's second delta renders as turns %v, want one user turn:\n%s", turns, cycle)
	}
	envelope := `<message seq="` + seq + `" `
	if !strings.Contains(cycle, envelope) || !strings.Contains(cycle, `kind="agent" id="review" label="Reviewer">`) {
		t.Errorf("Triage's second delta does not show Reviewer's reply #%s in an envelope with its name:\n%s", seq, cycle)
	}
	if strings.Contains(cycle, `id="triage"`) {
		t.Errorf("Triage's second delta holds its own reply:\n%s", cycle)
	}

	if !strings.Contains(out, "gap_too_large") {
		t.Errorf("demo does not show the reinitialization reason gap_too_large:\n%s", clip(out))
	}
	return out
}

// checkDemoWords: the demo says in words what the walk read and what the scribe has seen,
// not in the library's jargon.
func checkDemoWords(t *testing.T, out string) {
	t.Helper()
	_, marks := demodesk.Scenario()
	for _, want := range []string{
		"each view read only 32 of the desk's",
		"in one query to the database",
		fmt.Sprintf("Scribe has seen everything up to message #%d.", marks.ScribeLastSeen),
		fmt.Sprintf("Triage joins it having seen everything up to #%d", marks.Question-1),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the demo does not say %q:\n%s", want, clip(out))
		}
	}
	for _, jargon := range []string{"rows read in", "state stands at", "at watermark", "notes its reply present"} {
		if strings.Contains(out, jargon) {
			t.Errorf("the demo says %q:\n%s", jargon, clip(out))
		}
	}
}

// checkDemoAside checks the demo's private instruction from the operator to Triage in the
// views of the channel: Triage's column holds it, whole, and Triage's answer; Reviewer's and
// Scribe's hold in its place the elision, worded as view words it, and nothing of either. At
// the default width no cell is cut. It needs a store that keeps audiences.
func checkDemoAside(t *testing.T, out string) {
	t.Helper()
	rows, marks := demodesk.Scenario()
	_, cols := demoTable(t, out, "The channel")
	triage, others := cols[0], slices.Concat(cols[1], cols[2])
	if want := fmt.Sprintf("#%d Operator: %s", marks.Aside, demodesk.PrivateInstruction); !slices.Contains(triage, want) {
		t.Errorf("Triage's channel view does not hold the operator's aside to it, whole, %q:\n%q", want, triage)
	}
	if want := fmt.Sprintf("#%d ↳you: Understood: I hold the split until you confirm.", marks.Aside+1); !slices.Contains(triage, want) {
		t.Errorf("Triage's channel view does not hold its answer to the aside, %q:\n%q", want, triage)
	}
	for _, c := range others {
		if strings.Contains(c, "between us") || strings.Contains(c, "Understood") {
			t.Errorf("Reviewer's or Scribe's channel view holds the operator's aside to Triage or its answer: %q", c)
		}
	}
	elision := render.ElisionLine(transcript.Elision{From: marks.Aside, Through: marks.Aside, Count: 1, Readers: rows[marks.Aside-1].Readers()})
	for i, name := range []string{"Reviewer", "Scribe"} {
		if !slices.Contains(cols[i+1], elision) {
			t.Errorf("%s's channel view does not show the elision %q:\n%q", name, elision, cols[i+1])
		}
	}
	if n := strings.Count(out, "Triage, between us"); n != 1 {
		t.Errorf("the demo shows the operator's aside %d times, want once (in Triage's view):\n%s", n, clip(out))
	}
	_, thread := demoTable(t, out, "Thread #")
	for _, c := range slices.Concat(slices.Concat(cols...), slices.Concat(thread...)) {
		if strings.HasSuffix(c, demodesk.CutMarker) {
			t.Errorf("a cell is cut at the default width: %q", c)
		}
	}
}

// demoTable returns the first table after heading in out: its lines and, for each column,
// its cells, each cell's lines joined by a space. A table is a line of titles, each starting
// its column, and the lines below it up to a blank line; a cell's lines after its first are
// indented.
func demoTable(t *testing.T, out, heading string) (table []string, cols [][]string) {
	t.Helper()
	i := strings.Index(out, heading)
	if i < 0 {
		t.Fatalf("the demo shows no %q:\n%s", heading, clip(out))
	}
	lines := strings.Split(out[i:], "\n")
	k := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "Triage sees") })
	if k < 0 {
		t.Fatalf("no table under %q:\n%s", heading, clip(out[i:]))
	}
	var starts []int
	for _, title := range strings.Fields(strings.ReplaceAll(lines[k], " sees", "_sees")) {
		title = strings.ReplaceAll(title, "_sees", " sees")
		starts = append(starts, utf8.RuneCountInString(lines[k][:strings.Index(lines[k], title)]))
	}
	table = append(table, lines[k])
	cols = make([][]string, len(starts))
	for _, line := range lines[k+1:] {
		if line == "" {
			break
		}
		table = append(table, line)
		r := []rune(line)
		for j, from := range starts {
			to := len(r)
			if j+1 < len(starts) {
				to = min(starts[j+1], len(r))
			}
			if from >= to {
				continue
			}
			text := strings.TrimRight(string(r[from:to]), " ")
			switch {
			case text == "":
			case strings.HasPrefix(text, "  ") && len(cols[j]) > 0: // a cell's line after its first, indented
				cols[j][len(cols[j])-1] += " " + strings.TrimSpace(text)
			default:
				cols[j] = append(cols[j], text)
			}
		}
	}
	return table, cols
}

// TestDemoSuggestionsRunAsPrinted: the commands demo suggests at its end run as printed, by
// a shell, from where it ran and against the --db and the --desk it was given: they begin
// as the command was run (here, by the built binary's path), not with go run, which only
// works inside the module.
func TestDemoSuggestionsRunAsPrinted(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	for _, args := range [][]string{
		{"demo", "--db", "x.db"},
		{"demo", "--db", "y.db", "--desk", "tour"},
	} {
		out := c.ok(args...)
		_, tries, _ := strings.Cut(out, ": try\n")
		n := 0
		for line := range strings.Lines(tries) {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			n++
			if !strings.HasPrefix(line, binary(t)+" view ") {
				t.Errorf("%s suggests %q, which does not begin as the command was run (%s)", strings.Join(args, " "), line, binary(t))
			}
			sh := exec.Command("sh", "-c", line)
			sh.Dir = c.dir
			if out, err := sh.Output(); err != nil || len(out) == 0 {
				t.Errorf("%s suggests %q, which fails as printed: %v", strings.Join(args, " "), line, err)
			}
		}
		if n == 0 {
			t.Errorf("%s suggests no command:\n%s", strings.Join(args, " "), clip(out))
		}
	}
}

// TestInvokedAs: the demo's suggestions begin with go run when go run built the command,
// else with the name the command was run by, as a shell reads it.
func TestInvokedAs(t *testing.T) {
	for _, tc := range []struct{ executable, arg0, want string }{
		{"/tmp/go-build1242035156/b001/exe/transcript", "/tmp/go-build1242035156/b001/exe/transcript", "go run ./cmd/transcript"},
		{"/root/.cache/go-build/30/3071-d/transcript", "/root/.cache/go-build/30/3071-d/transcript", "go run ./cmd/transcript"},
		{"/home/ana/go/bin/transcript", "transcript", "transcript"},
		{"/home/ana/src/transcript", "./transcript", "./transcript"},
		{"/home/ana/my tools/transcript", "/home/ana/my tools/transcript", "'/home/ana/my tools/transcript'"},
		{"", "", "transcript"},
	} {
		if got := invokedAs(tc.executable, tc.arg0); got != tc.want {
			t.Errorf("invokedAs(%q, %q) = %q, want %q", tc.executable, tc.arg0, got, tc.want)
		}
	}
}

// TestDemoWhere: the flags demo suggests name the database unless it is the default, quoted
// for a shell when it must be, and a PostgreSQL URL without its password, in its user info
// or its query.
func TestDemoWhere(t *testing.T) {
	for _, tc := range []struct {
		db, desk     string
		where, flags string
	}{
		{dbflag.Default, "demo", dbflag.Default, "--desk demo"},
		{"x.db", "demo", "x.db", "--db x.db --desk demo"},
		{"my desks/it's.db", "tour", "my desks/it's.db", `--db 'my desks/it'\''s.db' --desk tour`},
		{"postgres://app:hunter2pw@db.example/chat", "demo", "the PostgreSQL database", "--db postgres://app:xxxxx@db.example/chat --desk demo"},
		{"postgres://app@db.example/chat?password=hunter2pw", "demo", "the PostgreSQL database", "--db 'postgres://app@db.example/chat?password=xxxxx' --desk demo"},
		{"postgres://app@/chat?host=/run/pg&password=hunter2pw", "demo", "the PostgreSQL database", "--db 'postgres://app@/chat?host=/run/pg&password=xxxxx' --desk demo"},
	} {
		where, flags := demoWhere(dbflag.Flags{DB: tc.db, Desk: tc.desk})
		if where != tc.where || flags != tc.flags {
			t.Errorf("demoWhere(%q, %q) = %q, %q; want %q, %q", tc.db, tc.desk, where, flags, tc.where, tc.flags)
		}
	}
}
