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

// parse parses the whole command line into fs: flags may come before, between and after the
// positional arguments, which fs.Args returns in order; "--" ends the flags, and what follows
// it is positional even when it starts with "-". A flag error is errUsage and -h errHelp,
// printing the help once. So a flag typed after a command's text is a flag (or, unknown, a
// usage error naming it), never part of the text.
func parse(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error; print it only for -h
	defer func() { fs.Usage = help }()
	flags, afterDashes := splitAtDashes(fs, args)
	var positional []string
	for {
		err := fs.Parse(flags)
		switch {
		case errors.Is(err, flag.ErrHelp):
			help()
			return errHelp
		case err != nil:
			return usageErrorf("%s: %v (see transcript help %s)", fs.Name(), err, fs.Name())
		}
		if fs.NArg() == 0 {
			break
		}
		// fs stopped at a positional argument: keep it and parse on after it.
		positional = append(positional, fs.Arg(0))
		flags = fs.Args()[1:]
	}
	// Parsing "--" alone leaves exactly the positional arguments in fs.Args.
	if err := fs.Parse(append([]string{"--"}, append(positional, afterDashes...)...)); err != nil {
		return err
	}
	return applyDBEnv(fs)
}

// splitAtDashes splits args at the "--" that ends the flags: one that stands where a flag
// could, not one that is a flag's value (as in --desk --).
func splitAtDashes(fs *flag.FlagSet, args []string) (flags, afterDashes []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[:i], args[i+1:]
		}
		if len(a) < 2 || a[0] != '-' || strings.Contains(a, "=") {
			continue
		}
		if f := fs.Lookup(strings.TrimLeft(a, "-")); f != nil && !isBoolFlag(f) {
			i++ // its value, whatever it looks like
		}
	}
	return args, nil
}

// isBoolFlag reports whether f takes no value, as the flag package decides it.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
