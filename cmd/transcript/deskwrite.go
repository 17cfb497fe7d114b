package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/participants"
	"github.com/sharedesk/transcript/token"
)

// noteCreatedDB says on e's standard error that the command created a new SQLite
// database at db, with the directory it is in when db is a relative path: a command run
// from another directory than meant makes a database there, and says so.
func noteCreatedDB(e *env, db string) {
	where := db
	if !filepath.IsAbs(db) {
		if abs, err := filepath.Abs(db); err == nil {
			where = fmt.Sprintf("%s (%s)", db, abs)
		}
	}
	fmt.Fprintf(e.stderr, "created a new database at %s\n", where)
}

// createUsage is --create's help.
const createUsage = "make the desk if the database holds no desk of that name (without it, a desk name that is not there is an error that lists the desks: most often a typo)"

// addCreateFlag adds --create, for a command that writes to one desk, into create.
func addCreateFlag(fs *flag.FlagSet, create *bool) {
	fs.BoolVar(create, "create", false, createUsage)
}

// noDatabaseForDesk is the refusal of a command that writes to one desk, without
// --create, when the SQLite database f.db does not exist: nothing is created.
func (f deskFlags) noDatabaseForDesk() error {
	return fmt.Errorf("no database at %s, so no desk %q (add --create to make both; or name another database with --db or %s)", f.db, f.desk, dbEnv)
}

// checkWritingDesk is checkDesk for a command that writes to desk: a desk st does not hold
// is a *noDeskError that says --create makes it, unless create; with create it reports
// that the desk is new.
func checkWritingDesk(ctx context.Context, st store, desk string, create bool) (isNew bool, err error) {
	err = checkDesk(ctx, st, desk)
	var noDesk *noDeskError
	switch {
	case err == nil:
		return false, nil
	case !errors.As(err, &noDesk):
		return false, err
	case create:
		return true, nil
	}
	noDesk.create = true
	return false, noDesk
}

// unseenScanRows bounds the rows noteUnseen reads of a desk, newest first.
const unseenScanRows = 10_000

// noteUnseen says on e's standard error when p, a participant a command writes as (or
// makes a token for), is one the desk has not seen: not the author or a reader of an
// aside among its newest unseenScanRows rows, nor the participant of a token for it. It
// names the desk's participants of p's kind, so that a typo shows; it is no error: new
// participants are normal. The operator is always known. A failure to read the desk is
// not reported: the command goes on.
func noteUnseen(ctx context.Context, e *env, st store, desk string, p transcript.Author) {
	if p.Kind == transcript.KindOperator {
		return
	}
	seen := participants.Set{} // the desk's participants
	if tokens, err := token.List(ctx, st, desk); err == nil {
		for _, t := range tokens {
			seen.Add(t.Participant)
		}
	}
	// The rows, newest first, until p is among them: a participant the desk knows costs a
	// page or so, not unseenScanRows.
	read, all, err := seen.Scan(ctx, st.Log(desk), unseenScanRows, func() bool { return seen.Has(p) })
	if err != nil || seen.Has(p) {
		return
	}
	var names []string // the participants of p's kind
	for _, a := range seen.Sorted() {
		if a.Kind != p.Kind {
			continue
		}
		name := transcript.Author{Kind: a.Kind, ID: a.ID}.String()
		if a.Label != "" {
			name += " (" + a.Label + ")"
		}
		names = append(names, quoteIfNeeded(name))
	}
	slices.Sort(names)
	where := fmt.Sprintf("desk %s", quoteIfNeeded(desk))
	if !all {
		where = fmt.Sprintf("the newest %d rows of desk %s", read, quoteIfNeeded(desk))
	}
	if len(names) == 0 {
		fmt.Fprintf(e.stderr, "note: %s has not seen %s before, and no %s at all\n", where, participantText(p), kindPlural(p.Kind))
		return
	}
	fmt.Fprintf(e.stderr, "note: %s has not seen %s before; the %s it has seen: %s\n", where, participantText(p), kindPlural(p.Kind), strings.Join(names, ", "))
}

// kindPlural names the participants of kind k, in the plural.
func kindPlural(k transcript.AuthorKind) string {
	switch k {
	case transcript.KindPerson:
		return "people"
	case transcript.KindAgent:
		return "agents"
	case transcript.KindSystem:
		return "system participants"
	}
	return "operators"
}

// openForDesk is open for a command that writes to the one desk f.desk (append, token add,
// mcp): a desk the database does not hold is refused (checkWritingDesk) unless create, and
// so is a SQLite database that does not exist, which is then not created. isNew reports a
// desk the database does not hold yet, which create allowed.
func (f deskFlags) openForDesk(ctx context.Context, e *env, create bool) (st store, isNew bool, err error) {
	if err := checkDBScheme(f.db); err != nil {
		return nil, false, err
	}
	if !create && !f.exists() {
		return nil, false, f.noDatabaseForDesk()
	}
	if st, err = f.withIndexProgress(e).open(ctx); err != nil {
		return nil, false, err
	}
	if isNew, err = checkWritingDesk(ctx, st, f.desk, create); err != nil {
		st.Close()
		return nil, false, err
	}
	return st, isNew, nil
}

// noteCreatedDesk says on e's standard error that the command made desk, new.
func noteCreatedDesk(e *env, desk string) {
	fmt.Fprintf(e.stderr, "created desk %q\n", desk)
}
