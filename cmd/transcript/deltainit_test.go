package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/sharedesk/transcript/internal/dbflag"
)

// TestDeltaInitCommitRefusesAFileNotAState: delta --init --commit --state FILE, given a FILE
// that is not a state file (the database itself, a swapped or mistyped flag; any other
// file), exits 1, shows nothing and leaves FILE as it was; a state file delta wrote, for any
// viewer, is started over.
func TestDeltaInitCommitRefusesAFileNotAState(t *testing.T) {
	c := newCLI(t, "")
	c.ok("append", "--create", "--as", "person:ana", "m1")
	notes := c.writeFile("notes.txt", []byte("deploy at 22:00\n"))
	for _, path := range []string{c.path(dbflag.Default), notes} {
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		r := c.want(exitError, "delta", "--init", "--commit", "--state", path)
		if r.stdout != "" || !strings.Contains(r.stderr, "is not a state file") {
			t.Errorf("want nothing shown and the file named as no state file, got:\n%s", r)
		}
		if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
			t.Errorf("%s changed", r)
		}
	}
	if out := c.ok("view"); !strings.Contains(out, "m1") {
		t.Errorf("after the refusals, view does not show m1:\n%s", out)
	}

	c.ok("delta", "--as", "agent:x", "--init", "--commit", "--state", "s.json")
	c.ok("append", "--as", "person:ana", "m2")
	if out := c.ok("delta", "--as", "agent:y", "--init", "--commit", "--state", "s.json"); !strings.Contains(out, "m2") {
		t.Errorf("starting over from another viewer's state file: want the full view, got:\n%s", out)
	}
	if data, _ := os.ReadFile(c.path("s.json")); !strings.Contains(string(data), `"id": "y"`) {
		t.Errorf("the state file started over is not agent:y's:\n%s", data)
	}
}

// TestDeltaInitRefusesABoundPastTheNextRow: delta --init --before B with B past the desk's
// next row is refused as a delta refuses it (a watermark there would pass over rows still
// to come), writing no state; B at the next row (the triggering message, still to be
// written) is taken, and the rows appended after it are the next delta.
func TestDeltaInitRefusesABoundPastTheNextRow(t *testing.T) {
	c := newCLI(t, "")
	c.ok("append", "--create", "--as", "person:ana", "m1")
	c.ok("append", "--as", "person:ana", "m2")
	c.ok("append", "--as", "person:ana", "m3")
	for _, before := range []string{"5", "6"} {
		r := c.want(exitError, "delta", "--as", "agent:x", "--state", "s.json", "--init", "--before", before, "--commit")
		if r.stdout != "" || !strings.Contains(r.stderr, `desk "main"'s next row is #4`) {
			t.Errorf("want nothing shown and the next row named, got:\n%s", r)
		}
		if fileExists(c.path("s.json")) {
			t.Errorf("%s wrote a state", r)
		}
	}
	c.ok("delta", "--as", "agent:x", "--state", "s.json", "--init", "--before", "4", "--commit")
	for _, m := range []string{"m4", "m5", "m6"} {
		c.ok("append", "--as", "person:ana", m)
	}
	out := c.ok("delta", "--as", "agent:x", "--state", "s.json", "--commit")
	for _, m := range []string{"m5", "m6"} {
		if !strings.Contains(out, m) {
			t.Errorf("after delta --init --before 4 on a desk of 3 rows, the next delta does not show %s:\n%s", m, out)
		}
	}
}
