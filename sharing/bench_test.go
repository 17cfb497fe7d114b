package sharing_test

// Benchmarks for Prepare; BENCHMARKS.md holds the figures and the command that made them.
// Every desk is a memlog.Log built once per size from a seeded RNG, outside the timed loops,
// so every run measures the same rows. Rows read and host reads per op come
// from one untimed call through a counting Log; the timed loop reads the memlog directly.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sharing"
)

// Desk sizes: the delta benchmarks run on a desk small enough that the garbage collector's
// marking of the desk itself stays out of their figures; the no-news comparison runs on the
// large desk its target names.
const (
	benchSmallDeskRows = 10_000
	benchLargeDeskRows = 1_000_000
	benchThreadAge     = 1000 // the watched thread's root is this many rows below the head
)

// benchDesk returns a desk of n rows and the root of its watched thread, built on first use
// and kept for the rest of the run. The desk is a busy channel: about half the rows are
// roots, 30% of them answered by 1 to 5 replies (a fifth of those to the previous reply)
// interleaved with newer rows, 2% of rows are blank; in the newest benchThreadAge rows a
// quarter answer the watched thread's root directly.
func benchDesk(b *testing.B, n int) (*memlog.Log, transcript.Sequence) {
	b.Helper()
	benchDesks.Lock()
	defer benchDesks.Unlock()
	thread := transcript.Sequence(n - benchThreadAge)
	if desk, ok := benchDesks.m[n]; ok {
		return desk, thread
	}
	desk, err := memlog.From(benchRows(n, thread))
	if err != nil {
		b.Fatal(err)
	}
	benchDesks.m[n] = desk
	return desk, thread
}

var benchDesks = struct {
	sync.Mutex
	m map[int]*memlog.Log
}{m: make(map[int]*memlog.Log)}

// benchRows generates the rows of a benchDesk from a fixed seed.
func benchRows(n int, thread transcript.Sequence) []transcript.Message {
	authors := []transcript.Author{
		transcript.Operator(),
		transcript.Person("ana", "Ana Lima"),
		transcript.Person("raj", "Raj Patel"),
		transcript.Agent("triage", "Triage"),
		transcript.Agent("coder", "Coder"),
		transcript.System("workflow", "Workflow"),
	}
	r := rand.New(rand.NewPCG(3, 5))
	words := strings.Fields("the deploy failed on staging because the migration timed out; " +
		"retrying with a smaller batch fixed it, please review the patch before noon")
	contents := make([]string, 32)
	for i := range contents {
		var sb strings.Builder
		for sb.Len() < 20+r.IntN(300) {
			sb.WriteString(words[r.IntN(len(words))])
			sb.WriteByte(' ')
		}
		contents[i] = sb.String()
	}
	type open struct {
		root, last transcript.Sequence
		left       int
	}
	var opens []open // newest last
	rows := make([]transcript.Message, n)
	for i := range rows {
		seq := transcript.Sequence(i + 1)
		m := transcript.Message{Seq: seq, Author: authors[r.IntN(len(authors))], Content: contents[r.IntN(len(contents))]}
		if r.IntN(50) == 0 {
			m.Content = " "
		}
		switch {
		case seq == thread:
		case seq > thread && r.IntN(4) == 0:
			m.Parent = thread
		case len(opens) > 0 && r.IntN(100) < 45:
			k := len(opens) - 1 - r.IntN(min(len(opens), 8))
			o := &opens[k]
			m.Parent = o.root
			if o.last != 0 && r.IntN(5) == 0 {
				m.Parent = o.last
			}
			o.last = seq
			if o.left--; o.left == 0 {
				opens = slices.Delete(opens, k, k+1)
			}
		case r.IntN(10) < 3:
			opens = append(opens, open{root: seq, left: 1 + r.IntN(5)})
			if len(opens) > 16 {
				opens = slices.Delete(opens, 0, 1)
			}
		}
		rows[i] = m
	}
	return rows
}

// benchCountingLog counts the host reads and rows a walk makes. Not safe for concurrent use.
type benchCountingLog struct {
	log         transcript.Log
	reads, rows int
}

func (c *benchCountingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	pg, err := c.log.ReadBefore(ctx, before, limit)
	c.reads++
	c.rows += len(pg.Messages)
	return pg, err
}

type benchPrepareFunc func(context.Context, transcript.Log, sharing.Query) (sharing.Plan, error)

// BenchmarkDelta measures one delta with 0, 3 and 300 rows newer than the watermark (the
// desk's newest rows) on a desk of benchSmallDeskRows rows, at channel level and in the
// watched thread: Prepare, which starts small and doubles its reads.
func BenchmarkDelta(b *testing.B) {
	desk, thread := benchDesk(b, benchSmallDeskRows)
	head := desk.Head()
	views := []struct {
		name string
		c    transcript.Conversation
	}{
		{"channel", transcript.Conversation{Desk: "eng"}},
		{"thread", transcript.Conversation{Desk: "eng", Thread: thread}},
	}
	plans := []struct {
		name    string
		prepare benchPrepareFunc
	}{
		{"adaptive", sharing.Prepare},
	}
	for _, v := range views {
		for _, n := range []int{0, 3, 300} {
			q := sharing.Query{Desired: v.c, Current: v.c, State: sharing.Initialized(v.c, head-transcript.Sequence(n))}
			for _, p := range plans {
				b.Run(fmt.Sprintf("view=%s/new=%d/reads=%s", v.name, n, p.name), func(b *testing.B) {
					benchPrepare(b, desk, q, p.prepare)
				})
			}
		}
	}
}

// BenchmarkNoNews compares a delta with nothing new (Before 0, watermark at the head) with
// the projection an agent would otherwise make for its turn (channel, Window 30), on the same
// desk of benchLargeDeskRows rows. Target: the delta costs at most half the projection.
func BenchmarkNoNews(b *testing.B) {
	desk, _ := benchDesk(b, benchLargeDeskRows)
	c := transcript.Conversation{Desk: "eng"}
	b.Run("op=project", func(b *testing.B) {
		ctx := context.Background()
		q := transcript.Query{Conversation: c, Window: 30}
		proj, err := transcript.Project(ctx, desk, q)
		if err != nil || len(proj.Messages) != 30 {
			b.Fatalf("Project: %d messages, %v", len(proj.Messages), err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := transcript.Project(ctx, desk, q); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(proj.Scanned), "rows/op")
		b.ReportMetric(float64(proj.Reads), "reads/op")
	})
	b.Run("op=delta", func(b *testing.B) {
		q := sharing.Query{Desired: c, Current: c, State: sharing.Initialized(c, desk.Head())}
		benchPrepare(b, desk, q, sharing.Prepare)
	})
}

// benchPrepare times prepare(q) on desk and reports its CPU time (benchdesk.CPU) and the
// rows and host reads of one call.
func benchPrepare(b *testing.B, desk *memlog.Log, q sharing.Query, prepare benchPrepareFunc) {
	ctx := context.Background()
	counted := &benchCountingLog{log: desk}
	plan, err := prepare(ctx, counted, q)
	if err != nil || plan.Reinitialize != 0 {
		b.Fatalf("prepare: %v, reinitialize %v", err, plan.Reinitialize)
	}
	b.ReportAllocs()
	report := benchdesk.CPU(b)
	for b.Loop() {
		if _, err := prepare(ctx, desk, q); err != nil {
			b.Fatal(err)
		}
	}
	report()
	b.ReportMetric(float64(counted.rows), "rows/op")
	b.ReportMetric(float64(counted.reads), "reads/op")
	b.ReportMetric(float64(len(plan.Delta.Messages)), "msgs/op")
}

// benchCorrectedDesks returns a desk of benchSmallDeskRows rows with 10% of its rows edits of
// a recent row (benchdesk.Corrections), and the same desk without those rows, built once.
var benchCorrectedDesks = sync.OnceValues(func() ([2]*memlog.Log, error) {
	rows := benchRows(benchSmallDeskRows, transcript.Sequence(benchSmallDeskRows-benchThreadAge))
	with, without := benchdesk.Corrections(rows, 10)
	var desks [2]*memlog.Log
	var err error
	if desks[0], err = memlog.From(without); err != nil {
		return desks, err
	}
	desks[1], err = memlog.From(with)
	return desks, err
})

// BenchmarkNoNewsCorrections compares a delta with nothing new (Before 0, watermark at the
// head), at channel level and in the watched thread, on a desk of benchSmallDeskRows rows
// with 10% of them edits and on the same desk without those rows. Target: within 1.05×.
func BenchmarkNoNewsCorrections(b *testing.B) {
	desks, err := benchCorrectedDesks()
	if err != nil {
		b.Fatal(err)
	}
	thread := transcript.Sequence(benchSmallDeskRows - benchThreadAge)
	for _, c := range []transcript.Conversation{{Desk: "eng"}, {Desk: "eng", Thread: thread}} {
		for i, name := range []string{"0", "10"} {
			view := "channel"
			if c.Thread != 0 {
				view = "thread"
			}
			b.Run(fmt.Sprintf("view=%s/corrections=%s", view, name), func(b *testing.B) {
				q := sharing.Query{Desired: c, Current: c, State: sharing.Initialized(c, desks[i].Head())}
				benchPrepare(b, desks[i], q, sharing.Prepare)
			})
		}
	}
}
