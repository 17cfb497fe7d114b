package importer

import (
	"bufio"
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/sharedesk/transcript"
)

// maxLine is the longest line import reads: a 1 MiB message with every character escaped.
const maxLine = 8 << 20

// maxReported is how many bad lines import lists before it counts the rest.
const maxReported = 10

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
		if d.err != nil {
			bad(d, "%v", d.err)
			return
		}
		row := importRow{
			Message:     m,
			ParentKey:   string(l.Parent),
			ParentSeq:   transcript.Sequence(l.ParentSeq),
			CorrectsKey: string(l.Corrects),
			CorrectsSeq: transcript.Sequence(l.CorrectsSeq),
			Seq:         transcript.Sequence(l.Seq),
			Where:       lineWhere(d.n),
		}
		if problem := storeProblem(row.probe(), lineWording); problem != "" {
			bad(d, "%s", problem)
			return
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
// is wrong with it (the *transcript.AppendError's Err, which names neither store nor desk);
// a nil refusal for an error that is no such refusal.
func batchRefusal(err error) (index int, refusal error) {
	var ae *transcript.AppendError
	if errors.As(err, &ae) && ae.Index >= 0 {
		return ae.Index, ae.Err
	}
	return 0, nil
}
