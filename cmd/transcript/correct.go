package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/internal/quotable"
	"github.com/sharedesk/transcript/internal/readable"
	"github.com/sharedesk/transcript/posting"
)

func runEdit(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "edit", "[flags] SEQ [TEXT...]", `
Edit row SEQ of a desk: its new content is the arguments after SEQ joined by spaces, or
standard input when there are none. Only the row's author edits it (labels aside). The edit
is a new row, a correction, whose sequence number edit prints; the row it corrects shows the
new content from then on, marked revised, in every view, and a delta tells every viewer that
was shown the row. Text that starts with "-" goes after "--" (edit --as agent:bot 3 -- -5
degrees).

A row the participant may not read is answered as a missing one. A redacted row, a
correction and a blank row take no edit.

`+correctionExample)
	return runCorrection(ctx, e, fs, args, true)
}

func runRedact(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "redact", "[flags] SEQ", `
Redact row SEQ of a desk: its content, and that of every edit of it, is erased for good, and
every view shows the row in its place as redacted, without content. Its author or the
operator redacts it. The redaction is a new row, a correction, whose sequence number redact
prints; a delta tells every viewer that was shown the row.

A row the participant may not read is answered as a missing one. A row redacted already, a
correction and a blank row take no redaction.

`+correctionExample)
	return runCorrection(ctx, e, fs, args, false)
}

// correctionExample is the example edit's and redact's help end with.
const correctionExample = `For example:

  transcript append --create --as person:ana:Ana "deploy at 22:00"   # prints 1
  transcript edit --as person:ana 1 "deploy at 23:00"                # prints 2: #1 says 23:00, revised #2
  transcript redact 1                                                # prints 3: the operator erases #1 and #2`

// runCorrection runs edit (withText) or redact: it parses the command line into a
// correction, which the store decides by the correction rule and applies.
func runCorrection(ctx context.Context, e *env, fs *flag.FlagSet, args []string, withText bool) error {
	name := fs.Name()
	var df dbflag.Flags
	df.AddReading(fs, "main")
	as := authorFlag{author: transcript.Operator()}
	fs.Var(&as, "as", "the `participant` who corrects it: "+authorSyntax)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 || (!withText && fs.NArg() != 1) {
		if withText {
			return usageErrorf("edit takes SEQ and the new TEXT (or standard input)")
		}
		return usageErrorf("redact takes one SEQ")
	}
	seq, err := strconv.ParseUint(fs.Arg(0), 10, 63)
	if err != nil || seq == 0 {
		if err != nil && !quotable.Name(fs.Arg(0)) { // 0 is quoted: a number names nothing
			return usageErrorf("%s: SEQ is not a row's seq (a whole number from 1; %s)", name, cliflag.NotQuoted)
		}
		return usageErrorf("%s: %q is not a row's seq (a whole number from 1)", name, fs.Arg(0))
	}
	c := posting.Correction{Target: transcript.Sequence(seq), Redact: !withText}
	if withText {
		if c.Content, err = cliflag.Text(name, fs.Args()[1:], e.stdin); err != nil {
			return err
		}
	}
	// What the correction is alone (an edit's text not blank), before the database is
	// opened; the store applies the correction rule against the row.
	m, err := posting.PrepareCorrection(as.author, c)
	if err != nil {
		return usageErrorf("%s", userText(correctionAction(name, df.Desk, as.author, c.Target, err)))
	}
	st, err := df.WithIndexProgress(e.stderr, e.progress).OpenExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := dbflag.CheckDesk(ctx, st, df.Desk); err != nil {
		return err
	}
	stored, err := st.Append(ctx, df.Desk, m)
	if err != nil {
		refused := correctionAction(name, df.Desk, as.author, c.Target, posting.Refusal(m, err))
		refused.correctsRedacted = correctsRedactedRow(ctx, st.Log(df.Desk), refused.err, as.author)
		return refused
	}
	_, err = fmt.Fprintln(e.stdout, stored.Seq)
	return err
}

// correctsRedactedRow reports whether err refuses a correction of a correction whose own
// target, the row it corrects, viewer may read and was redacted: the advice to correct
// that row instead could not be followed. A failure to read the row reports false.
func correctsRedactedRow(ctx context.Context, log transcript.Log, err error, viewer transcript.Author) bool {
	target, ok := errors.AsType[*transcript.TargetError](err)
	if !ok || target.Corrects == 0 {
		return false
	}
	row, ok, rerr := readable.Row(ctx, log, target.Corrects, viewer)
	return rerr == nil && ok && row.Redacted
}
