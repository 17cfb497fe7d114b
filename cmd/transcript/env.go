package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"golang.org/x/term"

	"github.com/sharedesk/transcript/internal/cliflag"
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

// newFlags returns a flag set for a command (cliflag.NewFlagSet): -h prints its help to
// stdout, and a bad flag prints nothing but the error (on stderr, by exitCode).
func newFlags(e *env, name, synopsis, about string) *flag.FlagSet {
	return cliflag.NewFlagSet(e.stdout, "transcript", name, synopsis, about)
}

// parse parses the whole command line into fs (cliflag.Parse): flags may come before,
// between and after the positional arguments, which fs.Args returns in order; "--" ends the
// flags. A flag error is errUsage and -h errHelp, printing the help once. So a flag typed
// after a command's text is a flag (or, unknown, a usage error naming it), never part of
// the text. --db, when not given, is what TRANSCRIPT_DB names (applyDBEnv).
func parse(fs *flag.FlagSet, args []string) error {
	err := cliflag.Parse(fs, args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return errHelp
	case err != nil:
		return usageErrorf("%s: %v (see transcript help %s)", fs.Name(), err, fs.Name())
	}
	return applyDBEnv(fs)
}

// dbEnv names the environment variable that, when set, is --db's default for every command.
const dbEnv = "TRANSCRIPT_DB"

// applyDBEnv sets fs's --db, when the command has one and the command line did not give it,
// to what dbEnv names, when it is set (cliflag.SetFromEnv). The flag's default, in the help,
// stays defaultDB: the variable may hold a URL with a password.
func applyDBEnv(fs *flag.FlagSet) error {
	if _, err := cliflag.SetFromEnv(fs, "db", dbEnv); err != nil {
		return usageErrorf("%s: %v", dbEnv, err)
	}
	return nil
}
