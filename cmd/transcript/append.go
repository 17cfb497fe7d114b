package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/sharedesk/transcript"
)

func runAppend(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "append", "[flags] [TEXT...]", `
Append one message to a desk and print its sequence number. The content is the arguments
joined by spaces, or standard input when there are none.`)
	var df deskFlags
	addDeskFlags(fs, &df, "main")
	as := authorFlag{author: transcript.Operator()}
	fs.Var(&as, "as", "the `author`: "+authorSyntax)
	parent := fs.Uint64("parent", 0, "the `seq` this message replies to (0: a new root)")
	if err := parse(fs, args); err != nil {
		return err
	}
	content := strings.Join(fs.Args(), " ")
	if fs.NArg() == 0 {
		data, err := io.ReadAll(e.stdin)
		if err != nil {
			return fmt.Errorf("append: reading standard input: %w", err)
		}
		content = strings.TrimSuffix(string(data), "\n")
	}
	st, err := df.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	m, err := st.Append(ctx, df.desk, transcript.Message{Author: as.author, Parent: transcript.Sequence(*parent), Content: content})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(e.stdout, m.Seq)
	return err
}
