package sqlitestore

// The desks the benchmarks read: cut from benchdesk.Stream, the stream the root package's
// benchPlainDesk is cut from, stored once per size in a database file cached in os.TempDir.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
)

// benchDeskName is the desk of every benchmark database.
const benchDeskName = "bench"

// benchGenVersion names the generator (benchdesk.Stream and benchMessages) in cached file
// names: change it with the generator, so that a cached file never holds another
// generator's rows.
const benchGenVersion = 2

// benchStreamRows is the size of the one generated stream every desk is cut from: a desk of
// n rows is the stream's newest n rows, renumbered from 1, so desks of every size share their
// newest rows and a projection from the head does the same work on each. A reply whose parent
// falls below a desk's oldest row becomes a root of that desk.
const benchStreamRows = 1_000_000

// benchStream is the stream every desk is cut from: benchdesk.Stream, as the root package's
// benchmarks generate it.
var benchStream = sync.OnceValue(func() []benchdesk.Row { return benchdesk.Stream(benchStreamRows) })

// benchMessages returns a desk of n rows (at most benchStreamRows), oldest first, without
// Seq: the stream's newest n rows, parents renumbered to match.
func benchMessages(n int) []transcript.Message {
	stream := benchStream()
	offset := len(stream) - n
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	msgs := make([]transcript.Message, n)
	for i := range msgs {
		row := stream[offset+i]
		m := transcript.Message{Author: benchdesk.Authors[row.Author], Content: row.Text(), At: start.Add(time.Duration(offset+i) * time.Second)}
		if int(row.Parent) > offset {
			m.Parent = transcript.Sequence(int(row.Parent) - offset)
		}
		msgs[i] = m
	}
	return msgs
}

// benchAsideMessages returns benchMessages(n) with about percent of them asides, as
// benchdesk.Asides makes them: the audiences the reply rule gives them, in canonical order.
func benchAsideMessages(n, percent int) []transcript.Message {
	msgs := benchMessages(n)
	for i := range msgs {
		msgs[i].Seq = transcript.Sequence(i + 1) // benchdesk.Asides reads the desk's sequences
	}
	benchdesk.Asides(msgs, percent)
	for i := range msgs {
		msgs[i].Seq = 0
	}
	return msgs
}

// benchBatch is how many rows each AppendBatch of a desk's build stores.
const benchBatch = 50_000

// benchDesk names a benchmark database: its desk's size, and the percent of asides
// (benchAsideMessages; 0 for none).
type benchDesk struct{ rows, asides int }

var benchStores sync.Map // benchDesk → *Store, open for the whole run

// benchStore returns a store whose desk benchDeskName holds rows generated rows. The file is
// cached in os.TempDir, named by size, schema version and generator version; it is built
// with AppendBatch when missing or incomplete, and how it was built is logged.
func benchStore(tb testing.TB, rows int) *Store { return benchAsideStore(tb, rows, 0) }

// benchAsideStore is benchStore with about percent of the desk's rows asides, as
// benchAsideMessages makes them, in a file of its own (named by the percent too). The desk
// holds no more rows than benchdesk.Rows allows.
func benchAsideStore(tb testing.TB, rows, percent int) *Store {
	tb.Helper()
	rows = benchdesk.Rows(tb, rows)
	name := fmt.Sprintf("%d", rows)
	if percent > 0 {
		name += fmt.Sprintf("-asides%d", percent)
	}
	return benchCachedStore(tb, benchDesk{rows, percent}, name, rows, func(st *Store) {
		msgs := benchMessages(rows)
		if percent > 0 {
			msgs = benchAsideMessages(rows, percent)
		}
		benchBuild(tb, st, benchDeskName, msgs)
	})
}

// benchCachedStore returns the store cached under key, opening it the first time from the
// file named by name in os.TempDir (with the schema and generator versions), after build
// when the file's desk benchDeskName does not hold rows rows: build fills a new file, and
// the desk benchDeskName last. How the file was made is logged.
func benchCachedStore(tb testing.TB, key any, name string, rows int, build func(st *Store)) *Store {
	tb.Helper()
	if st, ok := benchStores.Load(key); ok {
		return st.(*Store)
	}
	ctx := context.Background()
	path := filepath.Join(os.TempDir(), fmt.Sprintf("sqlitestore-bench-v%d-g%d-%s.db", SchemaVersion, benchGenVersion, name))
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
		began := time.Now()
		build(st)
		fmt.Fprintf(os.Stderr, "built %s: %d rows with AppendBatch, %d rows a batch, in %v\n", path, rows, benchBatch, time.Since(began).Round(time.Millisecond))
	} else {
		fmt.Fprintf(os.Stderr, "reusing %s: %d rows, built earlier with AppendBatch, %d rows a batch\n", path, rows, benchBatch)
	}
	actual, _ := benchStores.LoadOrStore(key, st)
	return actual.(*Store)
}

// benchBuild appends msgs to desk of st with AppendBatch, benchBatch rows a batch.
func benchBuild(tb testing.TB, st *Store, desk string, msgs []transcript.Message) {
	tb.Helper()
	for i := 0; i < len(msgs); i += benchBatch {
		if err := st.AppendBatch(context.Background(), desk, msgs[i:min(i+benchBatch, len(msgs))]); err != nil {
			tb.Fatal(err)
		}
	}
}
