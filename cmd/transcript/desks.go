package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/sharedesk/transcript"
)

func runDesks(ctx context.Context, e *env, args []string) error {
	if rest, ok := desksDeleteArgs(args); ok {
		return runDesksDelete(ctx, e, rest)
	}
	fs := newFlags(e, "desks", "[flags] | desks delete NAME --yes", `
List the database's desks, one a line: its name, how many rows it holds and its newest row's
seq. A desk holds rows numbered 1 to its newest, so the two agree; a desk with no row yet
(one that only has tokens) is not listed. With --format json, an array of
{"desk","rows","newest"} objects.

"transcript desks delete NAME --yes" deletes a desk for good (see transcript help desks
delete).`)
	var df deskFlags
	fs.StringVar(&df.db, "db", defaultDB, dbUsage)
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
	st, err := df.openRead(ctx)
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
		head, err := deskHead(ctx, st.Log(name))
		if err != nil {
			return fmt.Errorf("reading desk %q: %w", name, err)
		}
		list = append(list, deskJSON{Desk: name, Rows: uint64(head), Newest: uint64(head)})
	}
	if *format == "json" {
		return writeJSONList(e.stdout, list)
	}
	if len(list) == 0 {
		// Not df.db itself: a postgres:// URL may hold a password.
		_, err := fmt.Fprintf(e.stdout, "the database holds no desk yet (%s makes one)\n", creatingCommands)
		return err
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "DESK\tROWS\tNEWEST")
	for _, d := range list {
		fmt.Fprintf(w, "%s\t%d\t#%d\n", d.Desk, d.Rows, d.Newest)
	}
	return w.Flush()
}

// noDeskError reports a desk the database does not hold, naming the ones it does.
type noDeskError struct {
	desk  string
	desks []string
	// create: the command makes the desk with --create, which the error suggests.
	create bool
}

func (e *noDeskError) Error() string {
	create := ""
	if e.create {
		create = fmt.Sprintf(" (add --create to make desk %q)", e.desk)
	}
	var bad *transcript.InvalidError
	if errors.As(transcript.ValidateDesk(e.desk), &bad) { // most likely a name mistyped, not one an older version stored
		return fmt.Sprintf("no desk %q (invalid desk name: %s); %s", e.desk, bad.Reason, e.known())
	}
	return fmt.Sprintf("no desk %q; %s%s", e.desk, e.known(), create)
}

// known names the desks the database holds.
func (e *noDeskError) known() string {
	if len(e.desks) == 0 {
		return "the database holds no desk yet"
	}
	return "the desks are: " + strings.Join(e.desks, ", ")
}

// openDesk is openRead for a command that reads the desk f.desk: the store, once it is
// known to hold that desk (else a *noDeskError, the store closed).
func (f deskFlags) openDesk(ctx context.Context) (store, error) {
	st, err := f.openRead(ctx)
	if err != nil {
		return nil, err
	}
	if err := checkDesk(ctx, st, f.desk); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// checkDesk returns a *noDeskError unless st holds a desk named desk: a read of a desk that
// does not exist (most often a typo) is an error, not an empty view.
func checkDesk(ctx context.Context, st store, desk string) error {
	desks, err := st.Desks(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(desks, desk) {
		return nil
	}
	return &noDeskError{desk: desk, desks: desks}
}

// checkThread returns an error unless the desk's log holds row thread (0, the channel, is
// always there).
func checkThread(ctx context.Context, log transcript.Log, desk string, thread transcript.Sequence) error {
	if thread == 0 {
		return nil
	}
	page, err := transcript.NewPager(log, thread+1).Next(ctx, 1)
	if err != nil {
		return err
	}
	if len(page) == 1 && page[0].Seq == thread {
		return nil
	}
	head, err := deskHead(ctx, log)
	if err != nil {
		return err
	}
	return fmt.Errorf("no thread #%d: desk %q holds rows #1 to #%d", thread, desk, head)
}

// deskHead returns the desk's newest Seq, 0 when it holds no row.
func deskHead(ctx context.Context, log transcript.Log) (transcript.Sequence, error) {
	page, err := transcript.NewPager(log, 0).Next(ctx, 1)
	if err != nil || len(page) == 0 {
		return 0, err
	}
	return page[0].Seq, nil
}
