package main

import (
	"context"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/posting"
)

func runAppend(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "append", "[flags] [TEXT...]", `
Append one message to a desk and print its sequence number. The content is the arguments
joined by spaces, or standard input when there are none. Flags may come after the text too;
text that starts with "-" goes after "--" (append --as agent:bot -- -5 degrees).

With --to the message is an aside: only its author, the participants listed and the operator
read it; everyone else's view shows an elision in its place (its range, count and readers,
never its content). --to takes participants as --as does, comma-separated or in several --to
flags (a label there cannot hold a comma). A reply to an aside is an aside for the same
readers: leave --to out and it goes to them; an author who may not read the parent cannot
reply to it.

A blank message (empty, or white space only: what an empty standard input gives) is shown in
no view; append refuses it unless --allow-blank says it is meant.

A desk the database does not hold (most often a typo) is refused, with the list of its desks,
unless --create says it is meant; so is a SQLite database that does not exist, which is
then not created. With --create, a message refused (a --parent the new desk does not hold,
say) creates no database either. An --as participant the desk has not seen is noted on
standard error, with the desk's participants of that kind: the message is appended all the
same.`)
	var df dbflag.Flags
	df.AddWriting(fs, "main")
	as := authorFlag{author: transcript.Operator()}
	fs.Var(&as, "as", "the `participant` who writes it: "+authorSyntax)
	parent := fs.Uint64("parent", 0, "the `seq` this message replies to (0: a new root)")
	var to audienceFlag
	fs.Var(&to, "to", "make the message an aside for these `participants`: "+audienceSyntax+" (repeatable)")
	allowBlank := fs.Bool("allow-blank", false, "store a blank message, which no view shows")
	df.AddCreate(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	// The audience's own rules (not the author, each once, at most MaxAudience), before the
	// database is opened; the store applies them again, and the reply rule.
	if err := (transcript.Message{Author: as.author, Audience: to.audience}).ValidateNew(); err != nil {
		return usageErrorf("append --to: %s", refusalText(err))
	}
	content, err := cliflag.Text("append", fs.Args(), e.stdin)
	if err != nil {
		return err
	}
	// The post goes through posting, as every surface's does: its checks that need no desk
	// (blank content among them) before the database is opened, as usage errors.
	req := posting.Request{Content: content, Parent: transcript.Sequence(*parent), AllowBlank: *allowBlank}
	for _, a := range to.audience {
		req.Audience = append(req.Audience, posting.Entry{Author: a})
	}
	if _, err := posting.Check(as.author, req); err != nil {
		return usageErrorf("%s", userText(appendAction(df.Desk, as.author, req.Parent, err)))
	}
	if df.Create && (!df.Exists() || df.IsEmptyFile()) {
		// The database is still to be made, and its desk holds no row: the post is checked
		// against an empty log first, so that one refused creates no database.
		if _, _, err := posting.Prepare(ctx, memlog.New(), as.author, req); err != nil {
			return appendAction(df.Desk, as.author, req.Parent, err)
		}
	}
	st, isNew, err := openAs(ctx, e, df, as.author)
	if err != nil {
		return err
	}
	defer st.Close()
	m, _, err := posting.Prepare(ctx, st.Log(df.Desk), as.author, req)
	if err != nil {
		return appendAction(df.Desk, as.author, req.Parent, err)
	}
	stored, err := st.Append(ctx, df.Desk, m)
	if err != nil {
		return appendAction(df.Desk, as.author, req.Parent, posting.Refusal(m, err))
	}
	if isNew {
		noteCreatedDesk(e, df.Desk)
	}
	_, err = fmt.Fprintln(e.stdout, stored.Seq)
	return err
}
