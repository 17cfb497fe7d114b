// Package cliflag parses a command's whole command line with the standard flag package:
// flags may come before, between and after the positional arguments, which flag alone stops
// at, and "--" ends the flags, as flag documents. A flag typed after a command's text is a
// flag, or an error naming it, never part of the text, which [Text] gives.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// NewFlagSet returns a flag set for the command "prog name" that reports errors to its
// caller (flag.ContinueOnError) and prints nothing of them. Its help, which Parse prints for
// -h, goes to w: "Usage: prog name synopsis", about without its surrounding white space, and
// the flags with their defaults.
func NewFlagSet(w io.Writer, prog, name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		fmt.Fprintf(w, "Usage: %s %s %s\n\n%s\n\nFlags:\n", prog, name, synopsis, strings.TrimSpace(about))
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return fs
}

// Parse parses the whole of args into fs: flags may come before, between and after the
// positional arguments, which fs.Args then returns in order; "--" ends the flags, and what
// follows it is positional even when it starts with "-" (a "--" that is a flag's value, as
// in --desk --, is the value). For -h it prints fs's help once and returns flag.ErrHelp; a
// bad flag is the flag package's error, and fs's help is not printed.
func Parse(fs *flag.FlagSet, args []string) error {
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
			return flag.ErrHelp
		case err != nil:
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		// fs stopped at a positional argument: keep it and parse on after it.
		positional = append(positional, fs.Arg(0))
		flags = fs.Args()[1:]
	}
	// Parsing "--" alone leaves exactly the positional arguments in fs.Args.
	return fs.Parse(append([]string{"--"}, append(positional, afterDashes...)...))
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

// SetFromEnv sets fs's flag name, when fs has it and the command line did not give it (call
// it after Parse), to the value of the environment variable env, when that is set and not
// empty, and reports whether it did. The flag's default, which its help shows, is left as
// it was: the variable may hold what help must not print, such as a password in a URL. The
// error is the flag's Set's.
func SetFromEnv(fs *flag.FlagSet, name, env string) (set bool, err error) {
	f := fs.Lookup(name)
	value := os.Getenv(env)
	if f == nil || value == "" {
		return false, nil
	}
	given := false
	fs.Visit(func(v *flag.Flag) { given = given || v.Name == name })
	if given {
		return false, nil
	}
	return true, f.Value.Set(value)
}

// Text returns the text of command's command line, its positional arguments args (what
// Parse leaves): args joined by spaces, or, when there are none, all of stdin less one final
// line break. A failure to read stdin is an error that names command.
func Text(command string, args []string, stdin io.Reader) (string, error) {
	if len(args) > 0 {
		return strings.Join(args, " "), nil
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("%s: reading standard input: %w", command, err)
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

// ErrUsage marks a command line that cannot be run as given: a bad flag, a missing or
// extra argument, flags that do not go together.
var ErrUsage = errors.New("usage")

// Usagef returns an error matching ErrUsage, whose text is "usage: " and the formatted
// message.
func Usagef(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrUsage, fmt.Sprintf(format, args...))
}

// Guess is a flag that one stray argument may have been meant for: Flag, without its
// dashes, when Fits reports that the argument is such a flag's value.
type Guess struct {
	Flag string
	Fits func(arg string) bool
}

// NoArguments is the usage error of fs's command given arguments it does not take. When
// it was given one, it suggests the first of guesses that fs has and that the argument
// fits: "view takes no arguments; did you mean --desk eng?".
func NoArguments(fs *flag.FlagSet, guesses ...Guess) error {
	name := fs.Name()
	if fs.NArg() == 1 {
		arg := fs.Arg(0)
		for _, g := range guesses {
			if fs.Lookup(g.Flag) != nil && g.Fits(arg) {
				return Usagef("%s takes no arguments; did you mean --%s %s?", name, g.Flag, arg)
			}
		}
	}
	return Usagef("%s takes no arguments", name)
}

// Misplaced is the usage error of prog's command line args, which begins with a flag
// ("--desk eng view"), when a later argument is one of commands: it suggests the line with
// the command first, where its flags follow it, each word quoted that a shell would not
// take as it is. It returns nil when no argument is a command.
func Misplaced(prog string, commands []string, args []string) error {
	for i, a := range args {
		if !slices.Contains(commands, a) {
			continue
		}
		line := append([]string{prog, a}, args[:i]...)
		line = append(line, args[i+1:]...)
		for j, w := range line {
			if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?;&|<>()") {
				line[j] = strconv.Quote(w)
			}
		}
		return Usagef("the command comes first, its flags after it: did you mean %s?", strings.Join(line, " "))
	}
	return nil
}

// Subcommand splits args, a command line that begins with a command's name, into that name
// and the command's arguments. "help", -h, -help and --help alone ask for the list of
// commands: help is true and name "". Before a name, they ask for that command's help, whose
// arguments are then -h and what follows, so that "help token add" is "token -h add": a
// command with subcommands reads the name after -h as the one whose help to print, the
// others print theirs and stop at -h. Empty args give the name "".
func Subcommand(args []string) (name string, rest []string, help bool) {
	if len(args) == 0 {
		return "", nil, false
	}
	name, rest = args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) == 0 {
			return "", nil, true
		}
		name, rest = rest[0], append([]string{"-h"}, rest[1:]...)
	}
	return name, rest, false
}

// CutWord returns args without word, and true, when word is the first of args that is no
// flag nor the value of one of valued, the flags (named without their dashes) that take a
// value: "desks --db x delete eng" is "desks delete --db x eng". A "--" ends the search.
func CutWord(args []string, word string, valued ...string) ([]string, bool) {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == word:
			return append(slices.Clip(args[:i]), args[i+1:]...), true
		case a == "--":
			return nil, false
		case slices.Contains(valued, strings.TrimLeft(a, "-")):
			i++ // its value
		case !strings.HasPrefix(a, "-"):
			return nil, false
		}
	}
	return nil, false
}
