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
	"unicode"

	"github.com/sharedesk/transcript/internal/quotable"
	"github.com/sharedesk/transcript/token"
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
// bad flag is the flag package's error, and fs's help is not printed. The error quotes a
// flag's name only when quotable.Name allows it, and a value only when it allows each of
// its pieces between "," and ":"; what could be a secret is said without it (NotQuoted).
// An unknown flag is answered with the nearest of fs's (Nearest): "flag provided but not
// defined: -dsek; did you mean --desk?".
func Parse(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error; print it only for -h
	refused, restore := recordRefusals(fs)
	err := parseAll(fs, args)
	restore() // before help, which reads the flags' own values
	fs.Usage = help
	switch {
	case errors.Is(err, flag.ErrHelp):
		help()
		return flag.ErrHelp
	case err != nil:
		return flagError(fs, args, *refused, err)
	}
	return nil
}

// parseAll is Parse's loop: fs.Parse up to each positional argument, then on after it.
func parseAll(fs *flag.FlagSet, args []string) error {
	flags, afterDashes := splitAtDashes(fs, args)
	var positional []string
	for {
		if err := fs.Parse(flags); err != nil {
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

// refusal is a value a flag's Set refused, and its error.
type refusal struct {
	flag  *flag.Flag
	value string
	err   error
}

// recordRefusals makes each of fs's flags record in *refused the last value its Set
// refuses, until restore puts the flags' own values back.
func recordRefusals(fs *flag.FlagSet) (refused *refusal, restore func()) {
	refused = new(refusal)
	var flags []*flag.Flag
	var values []flag.Value
	fs.VisitAll(func(f *flag.Flag) {
		flags, values = append(flags, f), append(values, f.Value)
		f.Value = &recordingValue{Value: f.Value, flag: f, refused: refused}
	})
	return refused, func() {
		for i, f := range flags {
			f.Value = values[i]
		}
	}
}

// recordingValue is a flag's Value that records the value its Set refuses.
type recordingValue struct {
	flag.Value
	flag    *flag.Flag
	refused *refusal
}

func (v *recordingValue) Set(s string) error {
	err := v.Value.Set(s)
	if err != nil {
		*v.refused = refusal{flag: v.flag, value: s, err: err}
	}
	return err
}

// IsBoolFlag is the recorded value's, so that the flag package parses the flag as before.
func (v *recordingValue) IsBoolFlag() bool {
	b, ok := v.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// NotQuoted is what an error says in place of an argument it does not quote back: one
// quotable.Name refuses.
const NotQuoted = quotable.NotQuoted

// flagError is the error Parse returns for err, fs.Parse's error for args, whose Set
// refusal, if it was one, is refused. A refused value with a piece quotable.Name does not
// allow (plainPieces) is left out, and so is the Set's error, for the flag's usage, unless
// it shows no such piece (showsNoSecret). The flag package's refusal of a number, a
// duration or a boolean, which says only "parse error", says what the flag wants instead
// (wants). An unknown flag, or bad flag syntax, whose name quotable.Name does not allow is
// not named; an unknown one it allows is named with the nearest of fs's flags, if one is
// near. Any other error is err.
func flagError(fs *flag.FlagSet, args []string, refused refusal, err error) error {
	if f := refused.flag; f != nil {
		if want, ok := wants(f); ok {
			return wantError(f, refused.value, want)
		}
		switch {
		case plainPieces(refused.value):
			return err
		case showsNoSecret(refused.err.Error(), refused.value):
			return fmt.Errorf("invalid value for flag -%s (%s): %w", f.Name, NotQuoted, refused.err)
		}
		_, usage := flag.UnquoteUsage(f)
		return fmt.Errorf("invalid value for flag -%s (%s); -%s: %s", f.Name, NotQuoted, f.Name, usage)
	}
	unknown, badSyntax := firstUnknownFlag(fs, args)
	switch {
	case badSyntax != "":
		if quotable.Name(strings.TrimLeft(badSyntax, "-=")) {
			return err
		}
		return fmt.Errorf("bad flag syntax (%s)", NotQuoted)
	case unknown == "":
		return err
	case !quotable.Name(unknown):
		return fmt.Errorf("flag provided but not defined (%s)", NotQuoted)
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if near, ok := Nearest(unknown, names); ok {
		return fmt.Errorf("%w; did you mean --%s?", err, near)
	}
	return err
}

// pieces returns the pieces of a flag's value between "," and ":", the separators of a list
// and of a participant ("agent:x,person:ana"), where a secret may be one entry.
func pieces(value string) []string {
	return strings.FieldsFunc(value, func(r rune) bool { return r == ',' || r == ':' })
}

// plainPieces reports whether an error may quote value back: each of its pieces is a
// plain name (quotable.Name), so that none of them could be a secret.
func plainPieces(value string) bool {
	for _, piece := range pieces(value) {
		if !quotable.Name(piece) {
			return false
		}
	}
	return true
}

// showsNoSecret reports whether text, a flag's refusal of value, shows no part of value
// that quotable.Name does not allow: neither value itself nor one of its pieces. A part
// without a letter or a digit (".", "..") names nothing, and text may show it.
func showsNoSecret(text, value string) bool {
	for _, part := range append(pieces(value), value) {
		if !quotable.Name(part) && namesSomething(part) && strings.Contains(text, part) {
			return false
		}
	}
	return true
}

// namesSomething reports whether s holds a letter or a digit.
func namesSomething(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

// firstUnknownFlag returns the first argument of args, read as fs.Parse reads them, that
// is no flag of fs: as unknown, the name it gives when fs has no such flag; as badSyntax,
// the argument when it is no flag's syntax ("---x", "-=x"). Both are "" when every flag
// is fs's. -h and -help are known: they ask for help.
func firstUnknownFlag(fs *flag.FlagSet, args []string) (unknown, badSyntax string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "", ""
		}
		if len(a) < 2 || a[0] != '-' {
			continue // positional: Parse reads on after it
		}
		name := strings.TrimPrefix(a[1:], "-")
		if name == "" || name[0] == '-' || name[0] == '=' {
			return "", a
		}
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		switch {
		case f == nil && name != "h" && name != "help":
			return name, ""
		case f != nil && !hasValue && !isBoolFlag(f):
			i++ // its value, whatever it looks like
		}
	}
	return "", ""
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
// fits: "view takes no arguments; did you mean --desk eng?", but only for an argument an
// error may quote back: a plain name (quotable.Name) or a whole number such as a row's
// seq. Any other argument is not quoted: it could be a secret.
func NoArguments(fs *flag.FlagSet, guesses ...Guess) error {
	name := fs.Name()
	if fs.NArg() == 1 {
		arg := fs.Arg(0)
		if !quotable.Name(arg) && !isWholeNumber(arg) {
			return Usagef("%s takes no arguments (given one, %s)", name, NotQuoted)
		}
		for _, g := range guesses {
			if fs.Lookup(g.Flag) != nil && g.Fits(arg) {
				return Usagef("%s takes no arguments; did you mean --%s %s?", name, g.Flag, arg)
			}
		}
	}
	return Usagef("%s takes no arguments", name)
}

// isWholeNumber reports whether s is a whole number below 2^63 in decimal digits, such as
// a row's seq: a number, which names nothing.
func isWholeNumber(s string) bool {
	_, err := strconv.ParseUint(s, 10, 63)
	return err == nil
}

// Misplaced is the usage error of prog's command line args, which begins with a flag
// ("--desk eng view"), when a later argument is one of commands: it suggests the line with
// the command first, where its flags follow it, each word quoted that a shell would not
// take as it is, and none showing a secret: a database's password is xxxxx (PrintableDSN),
// a token's secret SECRET. The command is the first such argument that does not follow a
// flag without "=", whose value it may be ("--desk demo view": demo is the desk), or, when
// each follows one ("--create append"), the first. It returns nil when no argument is a
// command.
func Misplaced(prog string, commands []string, args []string) error {
	at := -1
	for i, a := range args {
		if !slices.Contains(commands, a) {
			continue
		}
		if at < 0 {
			at = i
		}
		if i == 0 || !mayTakeValue(args[i-1]) {
			at = i
			break
		}
	}
	if at < 0 {
		return nil
	}
	line := append([]string{prog, args[at]}, args[:at]...)
	line = append(line, args[at+1:]...)
	for j, w := range line {
		w = withoutSecrets(w)
		line[j] = w
		if w == "" || strings.ContainsAny(w, " \t\n'\"\\$`*?;&|<>()") {
			line[j] = strconv.Quote(w)
		}
	}
	return Usagef("the command comes first, its flags after it: did you mean %s?", strings.Join(line, " "))
}

// withoutSecrets returns w, or, when it is a token's secret, "SECRET", or, when it holds a
// database's password, w as PrintableDSN prints it; a flag given with its value
// ("--db=URL") has its value so printed.
func withoutSecrets(w string) string {
	if name, value, ok := strings.Cut(w, "="); ok && strings.HasPrefix(name, "-") {
		return name + "=" + withoutSecrets(value)
	}
	if strings.HasPrefix(strings.ToLower(w), token.SecretPrefix) {
		return "SECRET"
	}
	return PrintableDSN(w)
}

// mayTakeValue reports whether the argument after a may be a's value: a is a flag without
// "=" ("--desk", not "--desk=eng" nor "--").
func mayTakeValue(a string) bool {
	return len(a) > 1 && a[0] == '-' && a != "--" && !strings.Contains(a, "=")
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
// flag nor the value of one of valued (FirstWord): "desks --db x delete eng" is "desks
// delete --db x eng".
func CutWord(args []string, word string, valued ...string) ([]string, bool) {
	i := FirstWord(args, valued...)
	if i < 0 || args[i] != word {
		return nil, false
	}
	return append(slices.Clip(args[:i]), args[i+1:]...), true
}

// FirstWord returns the index of the first of args that is no flag nor the value of one of
// valued, the flags (named without their dashes) that take a value, or -1 when there is
// none before a "--", which ends the search.
func FirstWord(args []string, valued ...string) int {
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "--":
			return -1
		case slices.Contains(valued, strings.TrimLeft(a, "-")):
			i++ // its value
		case !strings.HasPrefix(a, "-"):
			return i
		}
	}
	return -1
}
