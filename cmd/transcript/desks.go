package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/readable"
)

func runDesks(ctx context.Context, e *env, args []string) error {
	if rest, ok := cliflag.CutWord(args, "delete", "db", "format"); ok { // desks --db x delete eng
		return runDesksDelete(ctx, e, rest)
	}
	// A typo of delete is said to be one, before its flags (--yes) are parsed as desks'.
	if i := cliflag.FirstWord(args, "db", "format"); i >= 0 {
		if _, near := cliflag.Nearest(args[i], []string{"delete"}); near {
			return usageErrorf("desks: %s (desks delete NAME --yes)", unknownWord("subcommand", args[i], []string{"delete"}))
		}
	}
	fs := newFlags(e, "desks", "[flags] | desks delete NAME --yes", `
List the database's desks, one a line: its name, how many rows it holds and its newest row's
seq. A desk holds rows numbered 1 to its newest, so the two agree; a desk with no row yet
(one that only has tokens) is not listed. With --format json, an array of
{"desk","rows","newest"} objects.

"transcript desks delete NAME --yes" deletes a desk for good (see transcript help desks
delete).`)
	var df dbflag.Flags
	fs.StringVar(&df.DB, "db", dbflag.Default, dbflag.Usage)
	format := fs.String("format", "text", listFormatUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := checkListFormat("desks", *format); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		if fs.Arg(0) == "delete" {
			return usageErrorf("desks delete takes its flags after delete: transcript desks delete NAME --yes")
		}
		return noArguments(fs)
	}
	st, err := df.OpenRead(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	names, err := st.Desks(ctx)
	if err != nil {
		return err
	}
	list := make([]deskJSON, 0, len(names))
	for _, name := range names {
		head, err := readable.Head(ctx, st.Log(name))
		if err != nil {
			return fmt.Errorf("reading desk %q: %w", name, err)
		}
		list = append(list, deskJSON{Desk: name, Rows: uint64(head), Newest: uint64(head)})
	}
	if *format == "json" {
		return writeJSON(e.stdout, list)
	}
	if len(list) == 0 {
		// Not df.DB itself: a postgres:// URL may hold a password.
		_, err := fmt.Fprintf(e.stdout, "the database holds no desk yet (%s makes one)\n", dbflag.CreatingCommands)
		return err
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "DESK\tROWS\tNEWEST")
	for _, d := range list {
		fmt.Fprintf(w, "%s\t%d\t#%d\n", d.Desk, d.Rows, d.Newest)
	}
	return w.Flush()
}
