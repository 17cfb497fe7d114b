package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestREADMESearchOverHTTP runs the README's search over HTTP as a reader would: serve on
// the README's desk (examples/desk.jsonl as eng), TOKEN Triage's, and each curl command of
// the README that searches sent to that server; it prints what the README shows.
func TestREADMESearchOverHTTP(t *testing.T) {
	t.Parallel()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("the README's snippets need sh:", err)
	}
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("the README's HTTP snippets need curl:", err)
	}
	c := newCLI(t, "")
	db := c.path("desk.db")
	desk, err := filepath.Abs("../../examples/desk.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	c.ok("import", "--db", db, "--desk", "eng", desk)
	secret := addTokenInProcess(t, db, "eng", "agent:triage:Triage")
	srv := startServe(t, db)
	ran := 0
	for _, cmd := range readmeShellCommands(t) {
		if !strings.HasPrefix(cmd.line, "curl ") || !strings.Contains(cmd.line, "/search?") {
			continue
		}
		line := strings.ReplaceAll(cmd.line, "http://127.0.0.1:8474", srv.url)
		run := exec.Command(sh, "-c", line)
		run.Dir, run.Env = c.dir, append(os.Environ(), "TOKEN="+secret)
		var output bytes.Buffer
		run.Stdout, run.Stderr = &output, &output
		if err := run.Run(); err != nil {
			t.Fatalf("the README's command %q: %v\n%s", cmd.line, err, output.String())
		}
		if !cmd.checked || !matchesShown(cmd.shown, output.String()) {
			t.Errorf("the README's command %q printed\n%s\nbut the README shows\n%s", cmd.line, output.String(), strings.Join(cmd.shown, "\n"))
		}
		ran++
	}
	if ran == 0 {
		t.Error("the README shows no search over HTTP (a curl command of a /search? URL)")
	}
}
