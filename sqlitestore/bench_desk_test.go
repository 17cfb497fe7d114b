package sqlitestore

// The desks the benchmarks read: generated from a seeded RNG, the same shape as the root
// package's benchPlainDesk, stored once per size in a database file cached in os.TempDir.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
)

// benchDeskName is the desk of every benchmark database.
const benchDeskName = "bench"

// benchGenVersion names the generator below in cached file names: change it with the
// generator, so that a cached file never holds another generator's rows.
const benchGenVersion = 2

var (
	benchAuthors  = benchdesk.Authors
	benchContents = benchdesk.Contents
	benchBlanks   = benchdesk.Blanks
)

// benchStreamRows is the size of the one generated stream every desk is cut from: a desk of
// n rows is the stream's newest n rows, renumbered from 1, so desks of every size share their
// newest rows and a projection from the head does the same work on each. A reply whose parent
// falls below a desk's oldest row becomes a root of that desk.
const benchStreamRows = 1_000_000

// benchRow is one row of the generated stream. It holds no pointers, so the stream costs the
// garbage collector nothing while it is kept.
type benchRow struct {
	parent  uint32 // Seq of the parent in the stream, 0 for a root
	author  uint8  // index into benchAuthors
	content uint8  // index into benchContents, or len(benchContents)+i for benchBlanks[i]
}

// benchStream is a busy channel of benchStreamRows rows, oldest first (row i has Seq i+1):
// mostly roots, 30% of them opening a thread of 1 to 5 replies (a fifth of those to the
// thread's previous reply) interleaved with newer roots; 2% of rows are blank.
var benchStream = sync.OnceValue(func() []benchRow {
	type openThread struct {
		root, last uint32
		left       int
	}
	r := rand.New(rand.NewPCG(1, 2))
	rows := make([]benchRow, benchStreamRows)
	var open []openThread // newest last; at most 32, the rest are abandoned
	for i := range rows {
		seq := uint32(i + 1)
		row := benchRow{author: uint8(r.IntN(len(benchAuthors))), content: uint8(r.IntN(len(benchContents)))}
		if r.IntN(50) == 0 {
			row.content = uint8(len(benchContents) + r.IntN(len(benchBlanks)))
		}
		if len(open) > 0 && r.IntN(100) < 45 {
			k := len(open) - 1 - r.IntN(min(len(open), 8)) // one of the 8 newest threads
			t := &open[k]
			row.parent = t.root
			if t.last != 0 && r.IntN(5) == 0 {
				row.parent = t.last
			}
			t.last = seq
			if t.left--; t.left == 0 {
				open = slices.Delete(open, k, k+1)
			}
		} else if r.IntN(10) >= 7 {
			open = append(open, openThread{root: seq, left: 1 + r.IntN(5)})
			if len(open) > 32 {
				open = slices.Delete(open, 0, 1)
			}
		}
		rows[i] = row
	}
	return rows
})

// benchMessages returns a desk of n rows (at most benchStreamRows), oldest first, without
// Seq: the stream's newest n rows, parents renumbered to match.
func benchMessages(n int) []transcript.Message {
	stream := benchStream()
	offset := len(stream) - n
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		row := stream[offset+i]
		m := transcript.Message{Author: benchAuthors[row.author], At: start.Add(time.Duration(offset+i) * time.Second)}
		if int(row.content) < len(benchContents) {
			m.Content = benchContents[row.content]
		} else {
			m.Content = benchBlanks[int(row.content)-len(benchContents)]
		}
		if int(row.parent) > offset {
			m.Parent = transcript.Sequence(int(row.parent) - offset)
		}
		msgs[i] = m
	}
	return msgs
}

// benchBatch is how many rows each AppendBatch of a desk's build stores.
const benchBatch = 50_000

var benchStores sync.Map // rows → *Store, open for the whole run

// benchStore returns a store whose desk benchDeskName holds rows generated rows. The file is
// cached in os.TempDir, named by size, schema version and generator version; it is built
// with AppendBatch when missing or incomplete, and how it was built is logged.
func benchStore(tb testing.TB, rows int) *Store {
	tb.Helper()
	if st, ok := benchStores.Load(rows); ok {
		return st.(*Store)
	}
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("sqlitestore-bench-v%d-g%d-%d.db", SchemaVersion, benchGenVersion, rows))
	st, err := Open(ctx, path)
	if err != nil {
		tb.Fatal(err)
	}
	page, err := st.Log(benchDeskName).ReadBefore(ctx, 0, 1)
	if err != nil {
		tb.Fatal(err)
	}
	if len(page.Messages) == 0 || page.Messages[0].Seq != transcript.Sequence(rows) {
		st.Close()
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(path + suffix)
		}
		if st, err = Open(ctx, path); err != nil {
			tb.Fatal(err)
		}
		msgs := benchMessages(rows)
		began := time.Now()
		for i := 0; i < rows; i += benchBatch {
			if err := st.AppendBatch(ctx, benchDeskName, msgs[i:min(i+benchBatch, rows)]); err != nil {
				tb.Fatal(err)
			}
		}
		fmt.Fprintf(os.Stderr, "built %s: %d rows with AppendBatch, %d rows a batch, in %v\n", path, rows, benchBatch, time.Since(began).Round(time.Millisecond))
	} else {
		fmt.Fprintf(os.Stderr, "reusing %s: %d rows, built earlier with AppendBatch, %d rows a batch\n", path, rows, benchBatch)
	}
	actual, _ := benchStores.LoadOrStore(rows, st)
	return actual.(*Store)
}
