package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestDemoDefaultDB runs the demo the way the README does: in a fresh directory, with the
// default ./transcript.db, twice (the second run reuses the desk).
func TestDemoDefaultDB(t *testing.T) {
	t.Parallel()
	c := newCLI(t, "")
	first := checkDemo(t, c, "Built desk")
	if !fileExists(c.path(defaultDB)) {
		t.Errorf("demo left no %s in its working directory", defaultDB)
	}
	second := checkDemo(t, c, "Reusing desk")
	if second <= first {
		t.Errorf("second run's peer reply is #%d, want above the first run's #%d", second, first)
	}
}

func TestDemo(t *testing.T) {
	forEachBackend(t, func(t *testing.T, newDB func(t *testing.T) string) {
		c := newCLI(t, newDB(t))
		checkDemo(t, c, "Built desk")
		checkDemo(t, c, "Reusing desk")

		// A desk that holds something else is left alone.
		c.ok("append", "--desk", "other", "not the demo")
		r := c.want(exitError, "demo", "--desk", "other")
		if !strings.Contains(r.stderr, "already holds other messages") {
			t.Errorf("demo on a foreign desk: want a clear error, got:\n%s", r)
		}
		if got := c.ok("export", "--desk", "other"); strings.Count(got, "\n") != 1 {
			t.Errorf("demo on a foreign desk changed it: export is\n%s", got)
		}
	})
}

var (
	peerReplyRE = regexp.MustCompile(`Meanwhile Reviewer replies \(#(\d+)\)`)
	turn2RE     = regexp.MustCompile(`Turn 2: Triage's delta holds (.*?), not its own reply`)
	turnRE      = regexp.MustCompile(`(?m)^  (user|assistant|system):`)
)

// checkDemo runs the demo with c, checks what it shows, and returns the sequence of
// Reviewer's reply in its sharing cycle.
func checkDemo(t *testing.T, c *cli, build string) (peer int) {
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
	m := peerReplyRE.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("demo does not say when Reviewer replies:\n%s", clip(out))
	}
	seq := m[1]
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
	n, err := strconv.Atoi(seq)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// checkDemoAside checks the demo's private instruction from the operator to Triage in the
// views of the channel: Triage's column holds it and Triage's answer; Reviewer's and Scribe's
// hold an elision in its place, and nothing of either. The demo says how view prints the
// elision. It needs a store that keeps audiences.
func checkDemoAside(t *testing.T, out string) {
	t.Helper()
	_, marks := scenario()
	channel := out[:max(strings.Index(out, "\nThread #"), 0)]
	instruction := privateInstruction[:18] // what of it fits in a column: "Triage, between us"
	var triageCol, othersCols []string
	for line := range strings.Lines(channel) {
		cols := strings.Split(strings.TrimRight(line, "\n"), "  #") // columns are two spaces apart, each cell starts with #
		if len(cols) != 3 {
			continue
		}
		triageCol = append(triageCol, cols[0])
		othersCols = append(othersCols, cols[1], cols[2])
	}
	triage, others := strings.Join(triageCol, "\n"), strings.Join(othersCols, "\n")
	if !strings.Contains(triage, instruction) || !strings.Contains(triage, "↳you: Understood") {
		t.Errorf("Triage's channel view does not hold the operator's aside to it and its answer:\n%s", clip(channel))
	}
	if strings.Contains(others, instruction) || strings.Contains(others, "Understood") {
		t.Errorf("Reviewer's or Scribe's channel view holds the operator's aside to Triage or its answer:\n%s", clip(channel))
	}
	if cell := fmt.Sprintf("%d ⋯ aside of Operator and Triage", marks.aside); strings.Count(others, cell) != 2 {
		t.Errorf("Reviewer's and Scribe's channel views do not both show the elision %q:\n%s", cell, clip(channel))
	}
	if n := strings.Count(out, instruction); n != 1 {
		t.Errorf("the demo shows the operator's aside %d times, want once (in Triage's view):\n%s", n, clip(out))
	}
	if line := fmt.Sprintf("#%d · 1 message between Operator and Triage you cannot read", marks.aside); !strings.Contains(out, line) {
		t.Errorf("the demo does not show the elision line %q:\n%s", line, clip(out))
	}
}
