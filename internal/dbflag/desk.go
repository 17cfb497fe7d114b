package dbflag

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/quotable"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/stores"
)

// NoDeskError reports a desk the database does not hold, naming the ones it does.
type NoDeskError struct {
	Desk  string
	Desks []string
	// Create: the command makes the desk with --create, which the error suggests.
	Create bool
}

func (e *NoDeskError) Error() string {
	if !quotable.Text(e.Desk) {
		return fmt.Sprintf("no desk of the name given (%s); %s", quotable.NotQuoted, e.known())
	}
	create := ""
	if e.Create {
		create = fmt.Sprintf(" (add --create to make desk %q)", e.Desk)
	}
	if err := transcript.ValidateDesk(e.Desk); err != nil { // most likely a name mistyped, not one an older version stored
		return fmt.Sprintf("no desk %q (%v); %s", e.Desk, err, e.known())
	}
	return fmt.Sprintf("no desk %q; %s%s", e.Desk, e.known(), create)
}

// known names the desks the database holds.
func (e *NoDeskError) known() string {
	if len(e.Desks) == 0 {
		return "the database holds no desk yet"
	}
	return "the desks are: " + strings.Join(e.Desks, ", ")
}

// OpenDesk is OpenRead for a command that reads the desk f.Desk: the store, once it is
// known to hold that desk (else a *NoDeskError, the store closed).
func (f Flags) OpenDesk(ctx context.Context) (stores.Store, error) {
	return f.OpenThread(ctx, 0, transcript.Operator())
}

// OpenThread is OpenDesk for a command that reads one conversation of the desk f.Desk as
// viewer, the channel (thread 0) or a thread: the store, once it is known to hold a thread
// viewer may read (else CheckThreadFor's error, the store closed).
func (f Flags) OpenThread(ctx context.Context, thread transcript.Sequence, viewer transcript.Author) (stores.Store, error) {
	st, err := f.OpenRead(ctx)
	if err != nil {
		return nil, err
	}
	if err := f.CheckThreadFor(ctx, st, thread, viewer); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

// CheckDesk returns a *NoDeskError unless st holds a desk named desk: a read of a desk that
// does not exist (most often a typo) is an error, not an empty view.
func CheckDesk(ctx context.Context, st stores.Store, desk string) error {
	desks, err := st.Desks(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(desks, desk) {
		return nil
	}
	return &NoDeskError{Desk: desk, Desks: desks}
}

// CheckThread is CheckThreadFor the operator, who reads every row.
func (f Flags) CheckThread(ctx context.Context, st stores.Store, thread transcript.Sequence) error {
	return f.CheckThreadFor(ctx, st, thread, transcript.Operator())
}

// CheckThreadFor returns CheckDesk's error for f.Desk, else an error unless the desk holds
// row thread, no correction, and viewer may read it (readable.Thread; 0, the channel, is
// always there): a thread that is not there (most often a typo) is an error that names the
// desk's rows, not an empty view. A thread viewer may not read gets the same error as one
// that does not exist, as the service answers both alike.
func (f Flags) CheckThreadFor(ctx context.Context, st stores.Store, thread transcript.Sequence, viewer transcript.Author) error {
	if err := CheckDesk(ctx, st, f.Desk); err != nil || thread == 0 {
		return err
	}
	log := st.Log(f.Desk)
	if ok, err := readable.Thread(ctx, log, thread, viewer); err != nil || ok {
		return err
	}
	head, err := readable.Head(ctx, log)
	if err != nil {
		return err
	}
	if viewer.Kind == transcript.KindOperator {
		return fmt.Errorf("no thread #%d: desk %q holds rows #1 to #%d", thread, f.Desk, head)
	}
	return fmt.Errorf("no thread #%d that %s may read: desk %q holds rows #1 to #%d", thread, viewer, f.Desk, head)
}

// OpenForDesk is Open for a command that writes to the one desk f.Desk (append, token
// add, mcp): a desk the database does not hold is a *NoDeskError that says --create makes
// it, unless f.Create; and so is a SQLite database that does not exist, which is then not
// created. isNew reports a desk the database does not hold yet, which f.Create allowed.
func (f Flags) OpenForDesk(ctx context.Context) (st stores.Store, isNew bool, err error) {
	if err := checkScheme(f.DB); err != nil {
		return nil, false, err
	}
	if !f.Create && !f.Exists() {
		return nil, false, fmt.Errorf("no database at %s, so no desk %s (add --create to make both; or name another database with --db or %s)", quotedPath(f.DB), quotedDesk(f.Desk), Env)
	}
	if st, err = f.Open(ctx); err != nil {
		return nil, false, err
	}
	err = CheckDesk(ctx, st, f.Desk)
	var noDesk *NoDeskError
	switch {
	case err == nil:
		return st, false, nil
	case errors.As(err, &noDesk) && f.Create:
		return st, true, nil
	case noDesk != nil:
		noDesk.Create = true
	}
	st.Close()
	return nil, false, err
}

// quotedDesk is a desk's name as an error names it: quoted, unless it could be a secret
// given where the name should be.
func quotedDesk(desk string) string {
	if !quotable.Text(desk) {
		return "of the name given (" + quotable.NotQuoted + ")"
	}
	return strconv.Quote(desk)
}
