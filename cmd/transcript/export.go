package main

import (
	"context"

	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/internal/dbflag"
)

func runExport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "export", "[flags]", `
Write every message of a desk to standard output as JSON Lines, oldest first, in the format
import reads: each row's "seq", its key as "id" when it has one, its parent as "parent_seq",
a correction's target as "corrects_seq", and "revised" and "redacted" as corrections left
the row. Importing an export into an empty desk reproduces its rows, seqs, keys, parents,
audiences and corrections as stored (an erased row stays erased: no export holds what a
redaction erased); into the same desk it adds nothing. Asides are written too, content and all, each
with its "audience": an export is the operator's whole desk, not one viewer's view.`)
	var df dbflag.Flags
	df.AddReading(fs, "main")
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	st, err := df.OpenDesk(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	return importer.Export(ctx, e.stdout, st.Log(df.Desk))
}
