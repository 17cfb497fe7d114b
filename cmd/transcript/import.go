package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
	"github.com/sharedesk/transcript/sqlitestore"
)

// maxLine is the longest line import reads: a 1 MiB message with every character escaped.
const maxLine = 8 << 20

// maxContent is the largest content both stores take by default.
const maxContent = sqlitestore.DefaultMaxContent

// maxReported is how many bad lines import lists before it counts the rest.
const maxReported = 10

func runImport(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "import", "[flags] FILE", `
Load JSON Lines into a desk, one message a line, all or nothing: if any line is bad, each bad
line is reported with its number and what is wrong, and nothing is written. FILE "-" reads
standard input. With --from slack, FILE is a Slack workspace export (its folder or its .zip)
and --channel names the channel to load; with --from discord, FILE is a DiscordChatExporter
JSON export of one channel, or a folder or .zip holding it and its threads' files (given
without --from, such an export is recognised and the error says which flags to add). Every
format is incremental: a message the desk holds already (by its id, Slack's ts, Discord's
message id) adds nothing. A line looks like

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
Import prints how many messages were new and how many were already present.`)
	var df deskFlags
	addWritingDeskFlags(fs, &df, "main")
	from := fs.String("from", "jsonl", "the `format` of FILE: jsonl, slack or discord")
	channel := fs.String("channel", "", "with --from slack: the `channel` to load (its name, #name or id)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("import takes one FILE (or - for standard input)")
	}
	switch {
	case *from == "slack" && *channel == "":
		return usageErrorf("--from slack needs --channel NAME")
	case *from != "slack" && *channel != "":
		return usageErrorf("--channel is for --from slack")
	}
	if *from == "slack" || *from == "discord" {
		if fs.Arg(0) == "-" {
			return usageErrorf("--from %s reads a FILE, not standard input", *from)
		}
		if _, err := statInput(fs.Arg(0)); err != nil {
			return err
		}
	}
	switch *from {
	case "jsonl":
		return importJSONLines(ctx, e, df, fs.Arg(0))
	case "slack":
		return importExport(ctx, e, df, func() ([]importRow, error) { return readSlackExport(fs.Arg(0), *channel) })
	case "discord":
		return importExport(ctx, e, df, func() ([]importRow, error) { return readDiscordExport(fs.Arg(0)) })
	}
	return usageErrorf("--from %q: want jsonl, slack or discord", *from)
}

// importExport stores the rows read reads from a chat export, as import does JSON Lines.
func importExport(ctx context.Context, e *env, df deskFlags, read func() ([]importRow, error)) error {
	rows, err := read()
	if err != nil {
		return err
	}
	st, err := df.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	n, err := storeRows(ctx, e, st, df.desk, rows, nil)
	if err != nil {
		return err
	}
	return printImported(e, df.desk, n)
}

// printImported writes import's summary.
func printImported(e *env, desk string, n importCounts) error {
	_, err := fmt.Fprintf(e.stdout, "imported %s into desk %q (%d already present)\n", plural(n.added, "new message"), desk, n.present)
	return err
}

// importJSONLines imports the JSON Lines file at path ("-": standard input). A file with bad
// lines is checked against the desk all the same, so that one run reports what is wrong with
// its lines alone and with their ids and parents; against a database that does not exist
// yet, none is created.
func importJSONLines(ctx context.Context, e *env, df deskFlags, path string) error {
	in, size, err := openInput(e, path)
	if err != nil {
		return err
	}
	defer in.Close()
	ahead := startReadAhead(ctx, df, size)
	defer ahead.stop()
	bar := newProgress(e, "reading", size)
	rows, prep, err := readJSONLines(bar.reader(in), size)
	bar.done()
	if err != nil {
		return err
	}
	var st store
	switch {
	case ahead != nil:
		st, err = ahead.take()
	case prep.bad.n > 0 && !df.exists():
		// Checked as against an empty desk, with st nil.
	case prep.bad.n > 0:
		st, err = df.openRead(ctx) // nothing is stored: nothing is created or migrated either
	default:
		st, err = df.open(ctx)
	}
	if err != nil {
		if prep.bad.n > 0 {
			return prep.bad.err(prep.noun) // wrong whatever the desk holds
		}
		return err
	}
	if st != nil {
		defer st.Close()
	}
	prep.ahead = ahead
	n, err := storeRows(ctx, e, st, df.desk, rows, prep)
	if err != nil {
		return err
	}
	return printImported(e, df.desk, n)
}

// openInput opens path, or standard input for "-", and returns its size when known. It
// refuses, with a usage error, a folder, and a FILE that is a chat export (see
// checkJSONLines); a byte-order mark at the start is skipped.
func openInput(e *env, path string) (io.ReadCloser, int64, error) {
	if path == "-" {
		in := bufio.NewReaderSize(e.stdin, sniffBytes)
		if err := checkJSONLines(in, "standard input", ""); err != nil {
			return nil, 0, err
		}
		return io.NopCloser(in), 0, nil
	}
	info, err := statInput(path)
	if err != nil {
		return nil, 0, err
	}
	if info.IsDir() {
		return nil, 0, exportTreeError(os.DirFS(path), path, "a folder")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	in := bufio.NewReaderSize(f, sniffBytes)
	if err := checkJSONLines(in, path, path); err != nil {
		f.Close()
		return nil, 0, err
	}
	return bufferedFile{in, f}, info.Size(), nil
}

// bufferedFile is a file read through a buffer.
type bufferedFile struct {
	*bufio.Reader
	io.Closer
}

// readJSONLines decodes every line of r, size bytes when known (else 0), into the rows of an
// import (see storeRows), each named "line N" by its line number, and indexes their keys.
// Blank lines are skipped. A line is bad for what it holds alone (storeRows judges ids and
// parents against each other and the desk): a bad line is a row too, holding only its key
// and seq when the line gives them, listed in the prep's faulty rows, with what is wrong
// with it among the prep's problems, so that storeRows reports it with the rest and
// nothing is written. The error is r's; a line too long to read ends the reading, and is
// one of the problems.
func readJSONLines(r io.Reader, size int64) ([]importRow, *importPrep, error) {
	var (
		rows chunked[importRow]
		prep = &importPrep{keys: newKeyIndex(0), noun: "line"}
		seen int   // lines so far, while estimating how many come
		read int64 // and their bytes
	)
	bad := func(d *decodedLine, format string, args ...any) {
		prep.bad.add(rows.n, lineWhere(d.n), format, args...)
		if prep.faulty == nil {
			prep.faulty = make(map[int]bool)
		}
		prep.faulty[rows.n] = true
		row := importRow{Message: transcript.Message{Key: d.m.Key}, Seq: transcript.Sequence(d.l.Seq), Where: lineWhere(d.n)}
		prep.keys.add(&row)
		rows.add(row)
	}
	n, err := decodeLines(r, func(d *decodedLine) {
		if size > 0 && seen < blockLines {
			seen, read = seen+1, read+int64(d.size)
			if seen == blockLines {
				// The file's lines are likely about as long as its first ones; room for a
				// few more, which nothing touches unless they come, costs no memory.
				n := int(min(size*int64(seen)/read*17/16, size/minLineBytes, math.MaxInt32))
				rows.reserve(n)
				prep.keys.reserve(n)
			}
		}
		l, m := &d.l, d.m
		switch {
		case d.err != nil:
			bad(d, "%s", transcript.Reason(d.err))
			return
		case len(m.Content) > maxContent:
			bad(d, "content of %d bytes is over the limit of %d bytes", len(m.Content), maxContent)
			return
		case nulField(m) != "":
			bad(d, "%s holds a NUL byte, which the stores refuse (PostgreSQL text cannot hold one)", nulField(m))
			return
		}
		row := importRow{
			Message:   m,
			ParentKey: string(l.Parent),
			ParentSeq: transcript.Sequence(l.ParentSeq),
			Seq:       transcript.Sequence(l.Seq),
			Where:     lineWhere(d.n),
		}
		prep.keys.add(&row) // here, while the workers decode the next lines
		rows.add(row)
	})
	if err != nil {
		if !errors.Is(err, bufio.ErrTooLong) {
			return nil, nil, err
		}
		prep.bad.add(rows.n, lineWhere(n+1), "longer than %d bytes", maxLine)
	}
	return rows.slice(), prep, nil
}

// lineWhere names line n of a JSON Lines file, as importRow.Where does.
func lineWhere(n int) string { return "line " + strconv.Itoa(n) }

// nulField names the first of m's texts that holds a NUL byte, or returns "".
func nulField(m transcript.Message) string {
	for _, f := range []struct{ name, text string }{{"content", m.Content}, {"author id", m.Author.ID}, {"author label", m.Author.Label}} {
		if strings.IndexByte(f.text, 0) >= 0 {
			return f.name
		}
	}
	for i, a := range m.Audience {
		if strings.IndexByte(a.ID, 0) >= 0 || strings.IndexByte(a.Label, 0) >= 0 {
			return fmt.Sprintf("audience entry %d", i)
		}
	}
	return ""
}

// problems collects what is wrong with an import's lines or messages, each named by where
// it is, and reports the first maxReported of them in order, and how many more there were,
// in one error.
type problems struct {
	listed []problem // the first in order, at most maxReported, ascending
	n      int
}

// problem is one thing wrong, and its place in the order problems lists them in.
type problem struct {
	order int
	text  string
}

// add notes what is wrong at where; order (a line number, a row's index) places it among the
// others, which may be added in any order.
func (p *problems) add(order int, where, format string, args ...any) {
	p.n++
	if len(p.listed) == maxReported && order >= p.listed[len(p.listed)-1].order {
		return
	}
	i := len(p.listed)
	for i > 0 && p.listed[i-1].order > order {
		i--
	}
	p.listed = slices.Insert(p.listed, i, problem{order, where + ": " + fmt.Sprintf(format, args...)})
	if len(p.listed) > maxReported {
		p.listed = p.listed[:maxReported]
	}
}

// err returns nil when nothing was added, else the error listing it, each thing counted as
// a noun ("line", "message").
func (p *problems) err(noun string) error {
	if p.n == 0 {
		return nil
	}
	list := make([]string, len(p.listed), len(p.listed)+1)
	for i, pr := range p.listed {
		list[i] = pr.text
	}
	if more := p.n - len(list); more > 0 {
		list = append(list, "and "+plural(more, "more bad "+noun))
	}
	return fmt.Errorf("%s, nothing was imported:\n  %s", plural(p.n, "bad "+noun), strings.Join(list, "\n  "))
}

// chunkSize is how many values a chunk of chunked holds.
const chunkSize = 8192

// chunked collects a number of values not known in advance in chunks of chunkSize, then
// copies them once into a slice of the exact length. Growing one slice of a million
// messages with append copies it over and over (by a quarter at a time, once it is large)
// and cost import seconds; chunks copy each value twice in all.
type chunked[T any] struct {
	full [][]T
	last []T
	n    int
}

func (c *chunked[T]) add(v T) {
	if len(c.last) == cap(c.last) {
		if c.last != nil {
			c.full = append(c.full, c.last)
		}
		c.last = make([]T, 0, chunkSize)
	}
	c.last = append(c.last, v)
	c.n++
}

// reserve makes room for n values in all, in one slice, so that slice need not copy them
// when no more come: an import that knows its file's size and the size of its first lines
// estimates how many lines follow. A reserve when more than a chunk is held does nothing.
func (c *chunked[T]) reserve(n int) {
	if len(c.full) > 0 || n <= cap(c.last) {
		return
	}
	c.last = append(make([]T, 0, n), c.last...)
}

// slice returns every value added, in order: the one reserved slice when every value fit
// in it, else a new slice.
func (c *chunked[T]) slice() []T {
	if len(c.full) == 0 {
		return c.last
	}
	out := make([]T, 0, c.n)
	for _, chunk := range c.full {
		out = append(out, chunk...)
	}
	return append(out, c.last...)
}

// batchRefusal returns the position in the batch of the message a store refused, and what
// is wrong with it (the store's AppendError's reason, which names neither store nor desk);
// a nil refusal for an error that is no such refusal.
func batchRefusal(err error) (index int, refusal error) {
	var se *sqlitestore.AppendError
	if errors.As(err, &se) && se.Index >= 0 {
		return se.Index, se.Err
	}
	var pe *pgstore.AppendError
	if errors.As(err, &pe) && pe.Index >= 0 {
		return pe.Index, pe.Err
	}
	return 0, nil
}
