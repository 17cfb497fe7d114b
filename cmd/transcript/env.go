package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// env is what a command reads and writes, and what it knows of the terminal.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	color          bool // stdout is a terminal that takes colour
	progress       bool // stderr is a terminal: show progress
	width          int  // stdout's width in columns
}

func newEnv(stdin io.Reader, stdout, stderr io.Writer) *env {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, width: 120}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			e.width = w
		}
	}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		e.progress = true
	}
	return e
}

var (
	// errUsage marks a command line that cannot be run: exit code 2.
	errUsage = errors.New("usage")
	// errHelp: the user asked for help, which was printed: exit code 0.
	errHelp = errors.New("help requested")
)

// usageErrorf returns an error matching errUsage.
func usageErrorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, args...))
}

// newFlags returns a flag set for a command; -h prints its help to stdout, and a bad flag
// prints nothing but the error (on stderr, by exitCode).
func newFlags(e *env, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(e.stdout, "Usage: transcript %s %s\n\n%s\n\nFlags:\n", name, synopsis, strings.TrimSpace(about))
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// parse parses args into fs and maps flag errors to errUsage and -h to errHelp, printing
// the help once.
func parse(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error; print it only for -h
	err := fs.Parse(args)
	fs.Usage = help
	switch {
	case errors.Is(err, flag.ErrHelp):
		help()
		return errHelp
	case err != nil:
		return usageErrorf("%s: %v (see transcript help %s)", fs.Name(), err, fs.Name())
	}
	return nil
}
