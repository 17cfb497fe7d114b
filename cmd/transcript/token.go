package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/token"
)

// tokenCommands are token's subcommands, in the order its help lists them.
var tokenCommands = []command{
	{"add", "make a token and print its secret, once", runTokenAdd},
	{"list", "list the tokens: id, desk, participant, created, revoked", runTokenList},
	{"revoke", "revoke a token for good", runTokenRevoke},
}

// runToken dispatches to a subcommand of token. "token -h SUB" (what "help token SUB" runs)
// is SUB's help.
func runToken(ctx context.Context, e *env, args []string) error {
	return dispatch(ctx, e, tokenCommands, tokenUsage, args, func(name string) error {
		if name == "" {
			tokenUsage(e.stderr)
			return usageErrorf("token needs a subcommand: add, list or revoke")
		}
		return usageErrorf("token: %s (want add, list or revoke)", unknownWord("subcommand", name, commandNames(tokenCommands)))
	})
}

func tokenUsage(w io.Writer) {
	printCommands(w, `Usage: transcript token <add|list|revoke> [flags] [arguments]

Bearer tokens are how serve knows who a request is: each token is one participant on one
desk, and whoever presents its secret (Authorization: Bearer SECRET) writes and reads as
that participant there, and as nobody else. The store keeps only the secret's SHA-256:
token add prints the secret once, and nothing can show it again. A token's ID (tok_ and 12
hex digits) names it where the secret must not appear: in token list, token revoke and the
server's logs.

Subcommands:
`, tokenCommands, "\nRun \"transcript token SUBCOMMAND -h\" (or \"transcript help token SUBCOMMAND\") for its flags.\n")
}

func runTokenAdd(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "token add", "--desk DESK --as PARTICIPANT [flags]", `
Make a token for one participant on one desk and print its secret, alone on a line of
standard output, so that TOKEN=$(transcript token add ...) captures it; what the token is
(its ID, participant and desk) goes to standard error. The secret is shown this once: the
database keeps only its hash. Give it to the participant, and revoke the token (token
revoke ID) if it leaks.

The participant is who the token's holder is on the desk, label included: the author of
what it posts and the viewer of what it reads. An operator token may also read as another
viewer (as= in the API). A desk the database does not hold is refused, with the list of its
desks, unless --create says it is meant: the token is then for a desk that holds no message
yet, which its first message makes. A participant the desk has not seen is noted on
standard error, with the desk's participants of that kind: most often a typo.`)
	var df dbflag.Flags
	df.AddWriting(fs, "main")
	var as authorFlag
	fs.Var(&as, "as", "the token's `participant` (required): "+authorSyntax)
	df.AddCreate(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if as.author.Kind == 0 {
		return usageErrorf("token add needs --as PARTICIPANT: whom the token speaks for (%s)", authorSyntax)
	}
	// A first token, not stored, checks the desk and the participant before anything is
	// opened, so that a bad flag leaves no database behind.
	if _, _, err := token.New(df.Desk, as.author, time.Now()); err != nil {
		return usageErrorf("token add: %v", err)
	}
	st, isNew, err := openAs(ctx, e, df, as.author)
	if err != nil {
		return err
	}
	defer st.Close()
	secret, t, err := token.Add(ctx, st, df.Desk, as.author, time.Now)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintln(e.stdout, secret); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "token %s for %s on desk %s: its secret, on standard output, is shown only this once\n",
		t.ID, participantText(t.Participant), console.QuoteIfNeeded(t.Desk))
	if isNew {
		fmt.Fprintf(e.stderr, "desk %s is new: it holds no message yet\n", console.QuoteIfNeeded(df.Desk))
	}
	if t.Participant.Kind == transcript.KindOperator {
		fmt.Fprintln(e.stderr, "an operator token reads every aside of the desk, and may read as any participant (as=): keep it with the operator")
	}
	return nil
}

func runTokenList(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "token list", "[--desk DESK] [flags]", `
List the tokens of the database, oldest first, revoked ones included: ID, desk, participant,
when it was made and when it was revoked ("-": it was not). Never a secret or a hash: the
database holds no secret, and the ID is a hash of the hash, which grants nothing. With
--format json, an array of {"id","desk","participant","created","revoked"} objects
(participant as import reads an author; revoked null while it is not).`)
	db := fs.String("db", dbflag.Default, dbflag.PlainUsage)
	desk := fs.String("desk", "", "only the tokens of this desk (default: every desk's)")
	format := fs.String("format", "text", listFormatUsage)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	if err := checkListFormat("token list", *format); err != nil {
		return err
	}
	st, err := dbflag.Flags{DB: *db}.OpenRead(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	shown, err := token.List(ctx, st, *desk)
	if err != nil {
		return err
	}
	if *format == "json" {
		return writeJSON(e.stdout, shown) // token.Token.MarshalJSON: never a secret or a hash
	}
	if len(shown) == 0 {
		if *desk != "" {
			fmt.Fprintf(e.stderr, "no tokens for desk %s (make one with transcript token add)\n", console.QuoteIfNeeded(*desk))
		} else {
			fmt.Fprintln(e.stderr, "no tokens (make one with transcript token add)")
		}
		return nil
	}
	return writeTokenTable(e.stdout, shown)
}

// writeTokenTable writes tokens as an aligned table with a header line.
func writeTokenTable(w io.Writer, tokens []token.Token) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDESK\tPARTICIPANT\tCREATED\tREVOKED")
	for _, t := range tokens {
		revoked := "-"
		if t.IsRevoked() {
			revoked = formatTokenTime(t.Revoked)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, console.QuoteIfNeeded(t.Desk), participantText(t.Participant), formatTokenTime(t.Created), revoked)
	}
	return tw.Flush()
}

func runTokenRevoke(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "token revoke", "ID [flags]", `
Revoke the token named ID (tok_ and 12 hex digits, as token list shows it), for good: from
now on its secret is refused (401), by every serve process on the database, at its next
request. The token stays in the list, with the time it was revoked, so that its ID still
says whose it was. Revoking a revoked token changes nothing. A participant whose secret
leaked gets a new token (token add).`)
	db := fs.String("db", dbflag.Default, dbflag.PlainUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("token revoke takes one ID (token list shows them)")
	}
	id := fs.Arg(0)
	if err := checkTokenID(id); err != nil {
		return err
	}
	st, err := dbflag.Flags{DB: *db}.WithIndexProgress(e.stderr, e.progress).OpenExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	t, err := token.Revoke(ctx, st, id, time.Now())
	switch {
	case errors.Is(err, token.ErrUnknown):
		return fmt.Errorf("token revoke: the database holds no token %s (token list shows them)", id)
	case err != nil:
		return err
	case t.IsRevoked():
		fmt.Fprintf(e.stderr, "token %s was revoked already, at %s\n", describeToken(t), formatTokenTime(t.Revoked))
		return nil
	}
	fmt.Fprintf(e.stderr, "revoked token %s\n", describeToken(t))
	return nil
}

// checkTokenID refuses, as a usage error, an argument that is not of the form of a token ID,
// without quoting it: it may be a secret pasted in the wrong place. For a secret it names
// the token's ID instead, which is public and is what revoke takes.
func checkTokenID(arg string) error {
	switch {
	case token.IsID(arg):
		return nil
	case strings.HasPrefix(arg, token.SecretPrefix):
		id := token.IDOf(token.Hash(strings.TrimSpace(arg)))
		return usageErrorf("token revoke takes a token's ID, not its secret (the argument is not shown here); that secret's token, if there is one, is %s: transcript token revoke %s", id, id)
	}
	return usageErrorf("token revoke: the argument (not shown here: it may be a secret) is not a token ID, %s and 12 lower-case hex digits; token list shows them", token.IDPrefix)
}

// describeToken names a token as a person reads it: its ID, participant and desk.
func describeToken(t token.Token) string {
	return fmt.Sprintf("%s (%s on desk %s)", t.ID, participantText(t.Participant), console.QuoteIfNeeded(t.Desk))
}

// participantText writes a participant in the syntax --as takes, label included:
// agent:triage:Triage, operator:Olga, person:ana. A label that would not print as one
// line is quoted.
func participantText(a transcript.Author) string {
	s := a.String()
	if a.Label != "" {
		s += ":" + a.Label
	}
	return console.QuoteIfNeeded(s)
}

// formatTokenTime writes a token's time in UTC, to the second.
func formatTokenTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }
