package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/stores"
	"github.com/sharedesk/transcript/token"
)

// runDesksDelete is "desks delete NAME": it deletes a desk for good.
func runDesksDelete(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "desks delete", "NAME --yes [flags]", `
Delete the desk NAME for good: its rows, their search index, and every participant's read
state of it (the books mcp and serve keep). It cannot be undone, so it asks for --yes; without
it, it says what the desk holds and deletes nothing. A desk that tokens are for is refused
unless --revoke-tokens says to delete them too: a token that outlived its desk would be a
token for the next desk of that name. A desk made later under the same name starts empty,
at row 1.

With SQLite the deleted text is overwritten in the file as the delete commits (the file
does not shrink: transcript compact gives the space back). With PostgreSQL it stays in the
table's pages until VACUUM: run transcript compact.`)
	var df dbflag.Flags
	fs.StringVar(&df.DB, "db", dbflag.Default, dbflag.PlainUsage)
	yes := fs.Bool("yes", false, "delete it: without it, nothing is deleted")
	revoke := fs.Bool("revoke-tokens", false, "delete the desk's tokens with it (a desk that has tokens is refused without it)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("desks delete takes one desk NAME (transcript desks lists them)")
	}
	df.Desk = fs.Arg(0)
	st, err := df.OpenExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	desks, err := st.Desks(ctx)
	if err != nil {
		return err
	}
	rows := uint64(0)
	if slices.Contains(desks, df.Desk) {
		head, err := readable.Head(ctx, st.Log(df.Desk))
		if err != nil {
			return err
		}
		rows = uint64(head)
	}
	deskTokens, err := token.List(ctx, st, df.Desk)
	if err != nil {
		return err
	}
	var tokens []string
	for _, t := range deskTokens {
		tokens = append(tokens, t.ID)
	}
	name := console.QuoteIfNeeded(df.Desk)
	switch {
	case rows == 0 && len(tokens) == 0:
		return &dbflag.NoDeskError{Desk: df.Desk, Desks: desks}
	case len(tokens) > 0 && !*revoke:
		are := fmt.Sprintf("%d tokens are", len(tokens))
		if len(tokens) == 1 {
			are = "1 token is"
		}
		return fmt.Errorf("desks delete: %s for desk %s (%s): add --revoke-tokens to delete them with it", are, name, strings.Join(tokens, ", "))
	case !*yes:
		what := plural(int(rows), "row")
		if len(tokens) > 0 {
			what += " and " + plural(len(tokens), "token")
		}
		return usageErrorf("desks delete: desk %s holds %s, which deleting it erases for good; add --yes to delete it", name, what)
	}
	n, err := st.DeleteDesk(ctx, df.Desk, *revoke)
	if errors.Is(err, token.ErrDeskHasTokens) {
		return fmt.Errorf("desks delete: a token for desk %s was made meanwhile: add --revoke-tokens to delete it with the desk", name)
	}
	if err != nil && ctx.Err() != nil {
		return &interruptedError{action: "deleting desk " + name, undone: "deleted", err: err}
	}
	if err != nil {
		return err
	}
	deleted := plural(int(n), "row")
	if *revoke {
		deleted += " and " + plural(len(tokens), "token")
	}
	fmt.Fprintf(e.stderr, "deleted desk %s: %s\n", name, deleted)
	if stores.IsPostgres(df.DB) && n > 0 {
		fmt.Fprintln(e.stderr, "PostgreSQL keeps the deleted text in the table's pages until VACUUM: run transcript compact")
	}
	return nil
}
