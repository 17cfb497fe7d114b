package main

import (
	"errors"
	"flag"
	"io"

	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
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
	t := console.Detect(stdout, stderr)
	return &env{stdin: stdin, stdout: stdout, stderr: stderr, color: t.Color, progress: t.Progress, width: t.Width}
}

var (
	// errUsage marks a command line that cannot be run: exit code 2.
	errUsage = cliflag.ErrUsage
	// errHelp: the user asked for help, which was printed: exit code 0.
	errHelp = errors.New("help requested")
	// errUsageShown: the command line cannot be run, and the help that says so was printed
	// on standard error: exit code 2.
	errUsageShown = errors.New("usage shown")
)

// usageErrorf returns an error matching errUsage (cliflag.Usagef).
func usageErrorf(format string, args ...any) error { return cliflag.Usagef(format, args...) }

// newFlags returns a flag set for a command (cliflag.NewFlagSet): -h prints its help to
// stdout, and a bad flag prints nothing but the error (on stderr, by exitCode).
func newFlags(e *env, name, synopsis, about string) *flag.FlagSet {
	return cliflag.NewFlagSet(e.stdout, "transcript", name, synopsis, about)
}

// parse parses the whole command line into fs (cliflag.Parse): flags may come before,
// between and after the positional arguments, which fs.Args returns in order; "--" ends the
// flags. A flag error is errUsage and -h errHelp, printing the help once. So a flag typed
// after a command's text is a flag (or, unknown, a usage error naming it), never part of
// the text. --db, when not given, is what TRANSCRIPT_DB names (dbflag.ApplyEnv).
func parse(fs *flag.FlagSet, args []string) error {
	err := cliflag.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return errHelp
	case err != nil:
		return usageErrorf("%s: %v (see transcript help %s)", fs.Name(), err, fs.Name())
	}
	return dbflag.ApplyEnv(fs)
}

// parseNoArgs is parse for a command that takes no arguments: any is noArguments' usage
// error.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := parse(fs, args); err != nil || fs.NArg() == 0 {
		return err
	}
	return noArguments(fs)
}
