package main

import (
	"flag"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/dbflag"
	"github.com/sharedesk/transcript/stores"
)

// store is what the commands open: sqlitestore.Store or pgstore.Store.
type store = stores.Store

// addViewerFlags adds, for a command that shows a desk to one viewer (view, delta, search),
// the desk flags, --read-db, whose standbys set aside are warned of on e's standard error,
// and --as, the viewer (the operator unless it says otherwise), whose what it is.
func addViewerFlags(e *env, fs *flag.FlagSet, what string) (*dbflag.Flags, *authorFlag) {
	df := &dbflag.Flags{Opts: stores.Options{StandbyReport: dbflag.StandbyWarnings(e.stderr)}}
	df.AddReading(fs, "main")
	df.AddReadDB(fs)
	as := &authorFlag{author: transcript.Operator()}
	fs.Var(as, "as", "the `participant` whose "+what+" it is: "+authorSyntax)
	return df, as
}
