package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
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
standard input. A line looks like

  {"id":"1","author":{"type":"person","id":"ana","label":"Ana"},"content":"hi"}
  {"id":"2","author":{"type":"agent","id":"triage","label":"Triage"},"content":"hello","parent":"1"}

  {"id":"3","author":{"type":"operator"},"content":"between us","audience":[{"type":"agent","id":"triage"}]}

author is {"type":"operator"}, {"type":"person"|"agent","id":..,"label":..} or
{"type":"system","kind":..,"label":..}; parent names an earlier line's id; "at" (RFC 3339) is
optional; ids are strings or numbers. "audience", a list of participants in the author's
form, makes the line an aside that only its author, those participants and the operator read
(each listed once, never the author; a reply to an aside may leave it out and goes to the
aside's readers). Keys are case-sensitive; an unknown or repeated key is an error. Text must
be valid UTF-8 without NUL bytes.`)
	var df deskFlags
	addDeskFlags(fs, &df, "main")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("import takes one FILE (or - for standard input)")
	}
	in, size, err := openInput(e, fs.Arg(0))
	if err != nil {
		return err
	}
	defer in.Close()
	bar := newProgress(e, "reading", size)
	msgs, lineNumbers, err := readLines(bar.reader(in))
	bar.done()
	if err != nil {
		return err
	}
	st, err := df.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	bar = newProgress(e, fmt.Sprintf("writing %d messages", len(msgs)), 0)
	err = st.AppendBatch(ctx, df.desk, msgs)
	bar.done()
	if i, ok := batchIndex(err); ok && i < len(lineNumbers) {
		return fmt.Errorf("line %d: %w (nothing was imported)", lineNumbers[i], err)
	}
	if err != nil {
		return fmt.Errorf("%w (nothing was imported)", err)
	}
	_, err = fmt.Fprintf(e.stdout, "imported %d messages into desk %q\n", len(msgs), df.desk)
	return err
}

// openInput opens path, or standard input for "-", and returns its size when known.
func openInput(e *env, path string) (io.ReadCloser, int64, error) {
	if path == "-" {
		return io.NopCloser(e.stdin), 0, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// readLines decodes every line of r into messages whose parents name earlier messages of
// the batch (transcript.BatchParent), and returns each message's line number. Blank lines
// are skipped. Bad lines are all reported, up to maxReported, in one error.
func readLines(r io.Reader) ([]transcript.Message, []int, error) {
	var (
		msgs    chunked[transcript.Message]
		numbers chunked[int]
		index   = map[lineID]int{} // id → batch position
		bad     []string
		badN    int
	)
	report := func(n int, format string, args ...any) {
		badN++
		if len(bad) < maxReported {
			bad = append(bad, fmt.Sprintf("line %d: %s", n, fmt.Sprintf(format, args...)))
		}
	}
	n, err := decodeLines(r, func(d *decodedLine) {
		l, m := d.l, d.m
		switch {
		case d.err != nil:
			report(d.n, "%v", d.err)
			return
		case len(m.Content) > maxContent:
			report(d.n, "content of %d bytes is over the limit of %d bytes", len(m.Content), maxContent)
			return
		case nulField(m) != "":
			report(d.n, "%s holds a NUL byte, which the stores refuse (PostgreSQL text cannot hold one)", nulField(m))
			return
		}
		if l.Parent != "" {
			i, ok := index[l.Parent]
			if !ok {
				report(d.n, "parent %q is not the id of an earlier line", l.Parent)
				return
			}
			m.Parent = transcript.BatchParent(i)
		}
		if l.ID != "" {
			if _, dup := index[l.ID]; dup {
				report(d.n, "id %q is used by an earlier line", l.ID)
				return
			}
			index[l.ID] = msgs.len()
		}
		msgs.add(m)
		numbers.add(d.n)
	})
	if err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			report(n+1, "longer than %d bytes", maxLine)
		} else {
			return nil, nil, err
		}
	}
	if badN > 0 {
		if badN > len(bad) {
			bad = append(bad, fmt.Sprintf("and %d more bad lines", badN-len(bad)))
		}
		return nil, nil, fmt.Errorf("%d bad lines, nothing was imported:\n  %s", badN, strings.Join(bad, "\n  "))
	}
	return msgs.slice(), numbers.slice(), nil
}

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

func (c *chunked[T]) len() int { return c.n }

// slice returns every value added, in order, in a new slice.
func (c *chunked[T]) slice() []T {
	out := make([]T, 0, c.n)
	for _, chunk := range c.full {
		out = append(out, chunk...)
	}
	return append(out, c.last...)
}

// batchIndex returns the position in the batch of the message a store refused.
func batchIndex(err error) (int, bool) {
	var se *sqlitestore.AppendError
	if errors.As(err, &se) && se.Index >= 0 {
		return se.Index, true
	}
	var pe *pgstore.AppendError
	if errors.As(err, &pe) && pe.Index >= 0 {
		return pe.Index, true
	}
	return 0, false
}
