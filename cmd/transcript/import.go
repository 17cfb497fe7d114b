package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript/importer"
	"github.com/sharedesk/transcript/internal/cliflag"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/internal/dbflag"
)

func runImport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "import", "[flags] FILE", `
Load JSON Lines into a desk, one message a line, all or nothing: if any line is bad, each bad
line is reported with its number and what is wrong, and nothing is written. FILE "-" reads
standard input. With --from slack, FILE is a Slack workspace export (its folder or its .zip)
and --channel names the channel to load; with --from discord, FILE is a DiscordChatExporter
JSON export of one channel, or a folder or .zip holding it and its threads' files (given
without --from, such an export is recognised and the error says which flags to add). Every
format is incremental: a message the desk holds already (by its id, Slack's ts, Discord's
message id) adds nothing; one Slack or Discord marks edited since (Slack's "edited",
Discord's "timestampEdited") adds an edit by its author when that edit is newer than the
desk's text, once however often it is imported (an older export never puts an older text
back); one changed without a date (a file deleted, a bot's update, a thread root deleted),
or edited from or to no text, keeps the desk's text, and the import says so (a message
edited or redacted on the desk keeps its text without a word); a reply to a message an
earlier import brought lands in its thread, and in a Discord export of a whole channel one
to a message deleted since lands where it stands. Slack's mentions and links read as in Slack ("@Ana", "#general", "label
(https://…)"). A line looks like

  {"id":"1","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi"}
  {"id":"2","author":{"type":"agent","id":"triage","label":"Triage"},"content":"hello","parent":"1"}

  {"id":"3","author":{"type":"operator"},"content":"between us","audience":[{"type":"agent","id":"triage"}]}

author is {"type":"operator"}, {"type":"person"|"agent","id":..,"label":..} or
{"type":"system","kind":..,"label":..}; "at" (RFC 3339) is optional. "audience", a list of
participants in the author's form, makes the line an aside that only its author, those
participants and the operator read (each listed once, never the author; a reply to an aside
may leave it out and goes to the aside's readers). Member names are case-sensitive; an
unknown or repeated one is an error. Text must be valid UTF-8 without NUL bytes; a
byte-order mark at the start of a file is skipped.

A line's "id" (a string or a number, at most 256 bytes, printable) is the row's key, unique in
the desk: a line whose id the desk holds already is that row, and adds nothing when it is the
same message (author identity, parent, audience and content; labels and times aside), or fails
the import when it is not. So re-importing a file adds nothing, and a file that extends an
earlier import adds only its new lines (a line without an id or a seq is new every time).
"parent" names an earlier line's id or a key the desk holds. Export writes each row's "seq"
(a row the desk holds must be that row; a new one must be stored exactly there) and
"parent_seq", the parent by sequence (a row of the desk, or an earlier line's seq): an export
imports into an empty desk as the same rows, and into its own desk as nothing new.

A line that names a row by "corrects" (an id) or "corrects_seq" (a seq, as "parent_seq")
is a correction of it, as transcript edit and redact append: an edit gives the row's new
content, a redaction ("redacted":true, content "") erases it; it has no parent. Export writes
each correction's "corrects_seq", and on each row what corrections left: "revised" (the
newest correction of it) and "redacted" (its content erased). A file carrying those is an
export, restored as it was stored, erased rows included, its corrections of its own rows
not applied again; a later export of the desk brings the corrections of rows an earlier one
brought, applied as an edit or a redaction is, so redacted words leave the copy.
Import prints how many messages were new, how many edits, and how many were already present.`)
	var df dbflag.Flags
	df.AddWriting(fs, "main")
	from := fs.String("from", "jsonl", "the `format` of FILE: jsonl, slack or discord")
	channel := fs.String("channel", "", "with --from slack: the `channel` to load (its name, #name or id)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("import takes one FILE (or - for standard input)")
	}
	if err := cliflag.OneOf("--from", *from, "jsonl", "slack", "discord"); err != nil {
		return err
	}
	switch {
	case *from == "slack" && *channel == "":
		return usageErrorf("--from slack needs --channel NAME")
	case *from != "slack" && *channel != "":
		return usageErrorf("--channel is for --from slack")
	case *from != "jsonl" && fs.Arg(0) == "-":
		return usageErrorf("--from %s reads a FILE, not standard input", *from)
	}
	if fs.Arg(0) != "-" {
		if _, err := statInput(fs.Arg(0)); err != nil {
			return err
		}
	}
	switch *from {
	case "slack":
		return importInto(ctx, e, df, importer.Slack(fs.Arg(0), *channel))
	case "discord":
		return importInto(ctx, e, df, importer.Discord(fs.Arg(0)))
	}
	return importJSONLines(ctx, e, df, fs.Arg(0))
}

// importInto imports src into the desk df names, and prints what it did.
func importInto(ctx context.Context, e *env, df dbflag.Flags, src importer.Source) error {
	isNew := false // the desk is not in the database the import opened to write
	db := importer.Database{
		Exists: df.Exists() && !df.IsEmptyFile(), // a file of no bytes: checked first, left as it is on failure
		Open: func(ctx context.Context) (importer.StoreCloser, error) {
			st, err := df.WithIndexProgress(e.stderr, e.progress).Open(ctx)
			if err == nil {
				isNew = dbflag.CheckDesk(ctx, st, df.Desk) != nil
			}
			return st, err // a nil store on an error: the dbflag opens return no typed nil
		},
		OpenRead: func(ctx context.Context) (importer.StoreCloser, error) { return df.OpenRead(ctx) },
	}
	n, err := importer.ImportInto(ctx, db, df.Desk, src, importer.WithProgress(&console.Progress{W: e.stderr, On: e.progress}))
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, ctx.Err()) { // Ctrl-C, or SIGTERM: an import stores all or nothing
			return &interruptedError{action: "import", undone: "imported", err: err}
		}
		return err
	}
	if isNew && n.Added > 0 {
		noteCreatedDesk(e, df.Desk)
	}
	imported := plural(n.Added, "new message")
	if n.Edited > 0 {
		imported += " and " + plural(n.Edited, "edit")
	}
	present := fmt.Sprintf("%d already present", n.Present)
	if n.Kept > 0 {
		present += fmt.Sprintf("; the desk keeps its own text of %s the export changed without an edit time", plural(n.Kept, "message"))
	}
	_, err = fmt.Fprintf(e.stdout, "imported %s into desk %q (%s)\n", imported, df.Desk, present)
	return err
}

// importJSONLines imports the JSON Lines file at path ("-": standard input), which runImport
// found there. A file with bad lines is checked against the desk all the same, so that one
// run reports what is wrong with its lines alone and with their ids and parents; against a
// database that does not exist yet, none is created. A FILE that is a folder or a chat
// export is a usage error that says which flags read it.
func importJSONLines(ctx context.Context, e *env, df dbflag.Flags, path string) error {
	src, in, err := importer.OpenJSONLines(path, e.stdin)
	if err != nil {
		return formatUsage(err)
	}
	defer in.Close()
	return importInto(ctx, e, df, src)
}
