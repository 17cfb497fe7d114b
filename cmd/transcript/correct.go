package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"

	"github.com/sharedesk/transcript"
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

  transcript append --as person:ana:Ana "deploy at 22:00"   # prints 1
  transcript edit --as person:ana 1 "deploy at 23:00"       # prints 2: #1 says 23:00, revised #2
  transcript redact 1                                       # prints 3: the operator erases #1 and #2`

// runCorrection runs edit (withText) or redact: it parses the command line into a
// correction, which the store decides by the correction rule and applies.
func runCorrection(ctx context.Context, e *env, fs *flag.FlagSet, args []string, withText bool) error {
	name := fs.Name()
	var df deskFlags
	addDeskFlags(fs, &df, "main")
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
		return usageErrorf("%s: %q is not a row's seq (a whole number from 1)", name, fs.Arg(0))
	}
	m := transcript.Message{Author: as.author, Corrects: transcript.Sequence(seq), Redacted: !withText}
	if withText {
		if m.Content, err = textOf(e, name, fs.Args()[1:]); err != nil {
			return err
		}
	}
	// What the correction is alone (an edit's text not blank), before the database is
	// opened; the store applies the correction rule against the row.
	if err := transcript.ValidateNew(m); err != nil {
		return usageErrorf("%s: %s", name, transcript.Reason(err))
	}
	st, err := df.withIndexProgress(e).openExisting(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := checkDesk(ctx, st, df.desk); err != nil {
		return err
	}
	m, err = st.Append(ctx, df.desk, m)
	if err != nil {
		return explainCorrectionError(err, name, df.desk, as.author, transcript.Sequence(seq))
	}
	_, err = fmt.Fprintln(e.stdout, m.Seq)
	return err
}

// explainCorrectionError words a store's refusal of a correction under the correction rule
// in the command's terms, naming the row by its seq only: nothing of its content, its
// readers or its author. A row the author may not read is refused as a missing one.
func explainCorrectionError(err error, command, desk string, author transcript.Author, seq transcript.Sequence) error {
	var text string
	switch {
	case errors.Is(err, transcript.ErrNotReadable):
		text = fmt.Sprintf("%s: desk %q holds no row #%d that %s may read", command, desk, seq, author)
	case errors.Is(err, transcript.ErrRedacted):
		text = fmt.Sprintf("%s: #%d was redacted: its content is erased, and it takes no more corrections", command, seq)
	case errors.Is(err, transcript.ErrNotAuthor) && command == "redact":
		text = fmt.Sprintf("redact: %s may not redact #%d: only its author or the operator may", author, seq)
	case errors.Is(err, transcript.ErrNotAuthor):
		text = fmt.Sprintf("edit: %s may not edit #%d: only its author may", author, seq)
	default:
		return err // the rule's other refusals say what is wrong already, by seq
	}
	return &rewordedError{text: text, err: err}
}
