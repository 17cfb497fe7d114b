// Command transcript shows what one participant of a shared chat desk sees, and keeps
// desks in an embedded SQLite file or a PostgreSQL database.
//
// Usage:
//
//	transcript <command> [flags] [arguments]
//
// "transcript help" lists the commands, each with what it does.
//
// view and delta show the --as viewer's view (by default the operator's, who reads every
// aside): an aside the viewer may not read is an elision, never its content. search finds
// words among the rows the --as viewer may read, and nowhere else. digest folds what came
// before a view's window, from the rows every participant may read, into bounded text that
// view --digest shows above the window.
//
// serve answers each participant over HTTP as view and delta do at the command line; who a
// request is comes from its bearer token, which token add makes (it prints the secret once,
// alone on standard output, and the store keeps only its hash). At / it serves the
// inspector page, which signs in with an operator token; serve --demo loads the demo desk
// and prints the page's address and such a token.
//
// Every command takes --db: a SQLite file (default ./transcript.db, or the one the
// TRANSCRIPT_DB environment variable names) or a postgres:// URL.
// view, delta, search and serve also take --read-db, repeatable: hot standbys of a
// PostgreSQL --db to read from. Run "transcript help COMMAND" for a command's flags.
//
// Exit codes: 0 success, 1 error, 2 usage error, 3 reinitialization required (delta).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/quotable"
)

// Exit codes.
const (
	exitOK     = 0
	exitError  = 1
	exitUsage  = 2
	exitReinit = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], newEnv(os.Stdin, os.Stdout, os.Stderr))
	stop()
	os.Exit(code)
}

// command is one subcommand.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, e *env, args []string) error
}

func commands() []command {
	return []command{
		{"demo", "build a demo desk and show what each agent sees, a sharing cycle and a reinitialization", runDemo},
		{"import", "load JSON Lines, a Slack export or a Discord export into a desk, all or nothing", runImport},
		{"export", "write a desk as JSON Lines", runExport},
		{"append", "append one message to a desk, or with --to an aside only some participants read", runAppend},
		{"edit", "edit a row: its author gives it new content, which every view shows from then on", runEdit},
		{"redact", "redact a row: erase its content for good, as its author or the operator", runRedact},
		{"desks", "list the desks: each one's name, rows and newest row; desks delete NAME deletes one", runDesks},
		{"compact", "remove what redactions erased from the database's files, as far as its server allows", runCompact},
		{"view", "show a projection of a desk for one viewer", runView},
		{"delta", "show what a viewer has not seen since its saved state", runDelta},
		{"search", "find the messages that hold some words, among those a viewer may read", runSearch},
		{"digest", "fold a conversation's older history into its digest now, and print it", runDigest},
		{"token", "make, list and revoke the bearer tokens serve knows participants by", runToken},
		{"serve", "serve the desks over HTTP: JSON, live event streams, bearer tokens", runServe},
		{"mcp", "serve one desk to one participant over the Model Context Protocol on stdio", runMCP},
		{"version", "print the module version and the VCS revision the command was built from", runVersion},
	}
}

// run executes one command line and returns the process's exit code.
func run(ctx context.Context, args []string, e *env) int {
	if len(args) > 0 && (args[0] == "--version" || args[0] == "-version") {
		args = append([]string{"version"}, args[1:]...)
	}
	cmds := commands()
	return exitCode(e, dispatch(ctx, e, cmds, usage, args, func(name string) error {
		names := commandNames(cmds)
		if err := cliflag.Misplaced("transcript", names, args); strings.HasPrefix(name, "-") && err != nil {
			return err
		}
		if name != "" {
			fmt.Fprintf(e.stderr, "transcript: %s\n\n", unknownWord("command", name, names))
		}
		usage(e.stderr)
		return errUsageShown
	}))
}

// commandNames returns the names of cmds, in their order.
func commandNames(cmds []command) []string {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	return names
}

// unknownWord says that name is no what ("command", "subcommand"), none of names: "unknown
// command "veiw"; did you mean view?". It quotes name, with the nearest of names when one
// is near (cliflag.Nearest), when quotable.Name allows it ("--bogus" as "bogus"), else
// neither quotes it nor suggests, since it could be a secret pasted in the wrong place.
func unknownWord(what, name string, names []string) string {
	if !quotable.Name(strings.TrimLeft(name, "-")) {
		return fmt.Sprintf("unknown %s (%s)", what, cliflag.NotQuoted)
	}
	if near, ok := cliflag.Nearest(name, names); ok {
		return fmt.Sprintf("unknown %s %q; did you mean %s?", what, name, near)
	}
	return fmt.Sprintf("unknown %s %q", what, name)
}

// dispatch runs the command of cmds that args name, with its arguments (cliflag.Subcommand:
// "help token add" is "token -h add"). Help alone prints usage on standard output (errHelp);
// unknown answers a name cmds lacks, and "" for none.
func dispatch(ctx context.Context, e *env, cmds []command, usage func(io.Writer), args []string, unknown func(name string) error) error {
	name, rest, help := cliflag.Subcommand(args)
	if help {
		usage(e.stdout)
		return errHelp
	}
	for _, c := range cmds {
		if c.name == name {
			return c.run(ctx, e, rest)
		}
	}
	return unknown(name)
}

// exitCode reports err, if any, and maps it to an exit code.
func exitCode(e *env, err error) int {
	var reinit *reinitError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return exitOK
	case errors.Is(err, errUsageShown):
		return exitUsage
	case errors.Is(err, errUsage):
		fmt.Fprintln(e.stderr, "transcript:", err)
		return exitUsage
	case errors.As(err, &reinit):
		fmt.Fprintln(e.stderr, "transcript:", reinit)
		return exitReinit
	}
	fmt.Fprintln(e.stderr, "transcript:", userText(err))
	return exitError
}

func usage(w io.Writer) {
	printCommands(w, "transcript shows what one participant of a shared chat desk sees.\n\n"+
		"Usage:\n  transcript <command> [flags] [arguments]\n\nCommands:\n", commands(),
		"\nEvery command takes --db: a SQLite file (default ./transcript.db, or the one the\n"+
			"TRANSCRIPT_DB environment variable names) or a postgres:// URL.\n"+
			"Run \"transcript help COMMAND\" for a command's flags.\n\n"+
			"Exit codes: 0 success, 1 error, 2 usage error, 3 reinitialization required (delta).\n")
}

// printCommands writes head, then a line a command of cmds, its name and its summary in
// aligned columns, then tail.
func printCommands(w io.Writer, head string, cmds []command, tail string) {
	width := 0
	for _, c := range cmds {
		width = max(width, len(c.name)+1)
	}
	io.WriteString(w, head)
	for _, c := range cmds {
		fmt.Fprintf(w, "  %-*s %s\n", width, c.name, c.summary)
	}
	io.WriteString(w, tail)
}
