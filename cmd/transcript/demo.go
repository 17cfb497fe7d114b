package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/demodesk"
	"github.com/sharedesk/transcript/stores"
)

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "demo", "[flags]", `
Build a demo desk in the database: an operator, two people, three agents, CI notices,
several threads, a busy stretch and a private instruction from the operator to Triage (an
aside). Then show, side by side, what each agent sees of the channel and of one thread
(Triage reads the aside; the others see only an elision in its place); walk through one
sharing cycle (Triage takes a turn, Reviewer replies in between, and Triage's next delta
holds only that reply, with Reviewer's name on it); and show one reinitialization with its
reason, whose fresh view begins with the channel's digest (folded by the extractive
digester, a few lines). Run again on the same database, the demo adds nothing: it shows the desk an earlier
run built.`)
	var df dbflag.Flags
	df.AddWriting(fs, "demo")
	window := fs.Int("window", demodesk.Window, "messages per view")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	start := time.Now()
	st, err := df.WithIndexProgress(e.stderr, e.progress).Open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	marks, err := demodesk.Tour(ctx, st, df.Desk, *window, demodesk.Terminal{Out: e.stdout, Color: e.color, Width: e.width})
	if err != nil {
		return err
	}
	where, flags := demoWhere(df)
	exe, _ := os.Executable()
	prog := invokedAs(exe, os.Args[0])
	fmt.Fprintf(e.stdout, "\n%s\n", console.Paint(e.color, console.Dim, fmt.Sprintf("Done in %s. The desk stays in %s as %q: try\n  %s view %s --as agent:triage --thread %d\n  %s view %s --as agent:scribe --window %d --digest",
		time.Since(start).Round(time.Millisecond), where, df.Desk, prog, flags, marks.DeployThread, prog, flags, *window)))
	return nil
}

// demoWhere returns the database of df as the demo names it, and the flags a command the
// demo suggests needs to read its desk: --db when it is not dbflag.Default, and --desk.
// A PostgreSQL URL is "the PostgreSQL database"; a password in --db is xxxxx
// (cliflag.PrintableDSN): what the demo prints is no place for it.
func demoWhere(df dbflag.Flags) (where, flags string) {
	db := cliflag.PrintableDSN(df.DB)
	where, flags = db, "--desk "+df.Desk
	if stores.IsPostgres(df.DB) {
		where = "the PostgreSQL database"
	}
	if df.DB != dbflag.Default {
		flags = "--db " + shellWord(db) + " " + flags
	}
	return where, flags
}

// invokedAs returns the words a command the demo suggests begins with, to run it as this
// one was run: "go run ./cmd/transcript" when executable is a build of go run's (it lives
// in a go-build directory: Go's build cache, or the temporary one go run builds in), else
// arg0, the name the command was run by ("transcript", "./transcript"), as a shell word.
func invokedAs(executable, arg0 string) string {
	for dir := range strings.SplitSeq(filepath.ToSlash(filepath.Dir(executable)), "/") {
		if strings.HasPrefix(dir, "go-build") {
			return "go run ./cmd/transcript"
		}
	}
	if arg0 == "" {
		return "transcript"
	}
	return shellWord(arg0)
}

// shellWord returns w as a POSIX shell reads it as one word: as it is when it holds only
// letters, digits and characters no shell treats specially, else in single quotes.
func shellWord(w string) string {
	plain := w != "" && !strings.ContainsFunc(w, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./:@%+=,", r))
	})
	if plain {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// plural returns "1 read" or "3 reads".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
