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

author is {"type":"operator"}, {"type":"person"|"agent","id":..,"label":..} or
{"type":"system","kind":..,"label":..}; parent names an earlier line's id; "at" (RFC 3339) is
optional; ids are strings or numbers.`)
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
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var (
		msgs    []transcript.Message
		numbers []int
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
	n := 0
	for sc.Scan() {
		n++
		text := sc.Bytes()
		if len(strings.TrimSpace(string(text))) == 0 {
			continue
		}
		l, m, err := decodeLine(text)
		if err != nil {
			report(n, "%v", err)
			continue
		}
		if len(m.Content) > maxContent {
			report(n, "content of %d bytes is over the limit of %d bytes", len(m.Content), maxContent)
			continue
		}
		if l.Parent != "" {
			i, ok := index[l.Parent]
			if !ok {
				report(n, "parent %q is not the id of an earlier line", l.Parent)
				continue
			}
			m.Parent = transcript.BatchParent(i)
		}
		if l.ID != "" {
			if _, dup := index[l.ID]; dup {
				report(n, "id %q is used by an earlier line", l.ID)
				continue
			}
			index[l.ID] = len(msgs)
		}
		msgs = append(msgs, m)
		numbers = append(numbers, n)
	}
	if err := sc.Err(); err != nil {
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
	return msgs, numbers, nil
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
