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
	fs := newFlags(e, "desks", "[flags]", `
List the database's desks, one a line: its name, how many rows it holds and its newest row's
seq. A desk holds rows numbered 1 to its newest, so the two agree; a desk with no row yet
(one that only has tokens) is not listed.`)
	var df deskFlags
	fs.StringVar(&df.db, "db", defaultDB, dbUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
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
	if len(names) == 0 {
		// Not df.db itself: a postgres:// URL may hold a password.
		_, err := fmt.Fprintf(e.stdout, "the database holds no desk yet (%s makes one)\n", creatingCommands)
		return err
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "DESK\tROWS\tNEWEST")
	for _, name := range names {
		head, err := deskHead(ctx, st.Log(name))
		if err != nil {
			return fmt.Errorf("reading desk %q: %w", name, err)
		}
		fmt.Fprintf(w, "%s\t%d\t#%d\n", name, head, head)
	}
	return w.Flush()
}

// noDeskError reports a desk the database does not hold, naming the ones it does.
type noDeskError struct {
	desk  string
	desks []string
}

func (e *noDeskError) Error() string {
	var bad *transcript.DeskNameError
	if errors.As(transcript.ValidateDesk(e.desk), &bad) { // most likely a name mistyped, not one an older version stored
		return fmt.Sprintf("no desk %q (invalid desk name: %s); %s", e.desk, bad.Reason, e.known())
	}
	return fmt.Sprintf("no desk %q; %s", e.desk, e.known())
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
