package transcript_test

// Benchmarks for Project against the baselines it is meant to beat; BENCHMARKS.md holds the
// figures and the command that made them. Every desk is a memlog.Log built once per shape and
// size, outside the timed loops, from a seeded RNG, so every run measures the same rows.

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/benchdesk"
	"github.com/sharedesk/transcript/memlog"
)

// benchShape says how a benchmark desk is made.
type benchShape uint8

const (
	// benchPlainDesk is a busy channel: 54% roots, 30% of which open a thread of 1 to 5
	// replies that interleave with newer rows (one reply in eight answers an earlier reply);
	// 2% of rows are blank.
	benchPlainDesk benchShape = iota
	// benchThreadedDesk is a benchPlainDesk with two long threads near the head: a dense one
	// rooted benchDenseRootAge rows below the head, which every other row of the newest
	// benchDenseSpan answers, and a sparse one rooted benchSparseRootAge rows below the head
	// (beyond ScanLimit), answered once every benchSparseStride rows.
	benchThreadedDesk
	// benchAsideDesk is a benchPlainDesk with benchAsidePercent% of its rows asides
	// (benchdesk.Asides): roots opened to one or two participants, and every reply in their
	// threads; benchdesk.Outsider reads none of them.
	benchAsideDesk
	// benchCorrectedDesk is a benchPlainDesk with benchCorrectionPercent% of its rows edits
	// of a recent row (benchdesk.Corrections), applied; benchUncorrectedDesk is the same desk
	// without those rows, their sequences gaps.
	benchCorrectedDesk
	benchUncorrectedDesk
)

// benchCorrectionPercent is how many rows in a hundred a benchCorrectedDesk makes edits.
const benchCorrectionPercent = 10

// benchAsidePercent is how many rows in a hundred a benchAsideDesk makes asides.
const benchAsidePercent = 20

// The long threads of a benchThreadedDesk, as ages: rows below the head (the head has age 0).
const (
	benchDenseRootAge  = 999
	benchDenseSpan     = 900 // ages 0, 2, 4, ... below this reply to the dense root
	benchSparseRootAge = 2999
	benchSparseStride  = 200 // ages 1, 201, 401, ... reply to the sparse root
)

var (
	benchAuthors  = benchdesk.Authors
	benchContents = benchdesk.Contents
)

// benchMessages returns the newest n rows of the stream as messages, oldest first.
func benchMessages(stream []benchdesk.Row, n int) []transcript.Message {
	start := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	out := make([]transcript.Message, n)
	for i := range out {
		j := len(stream) - n + i
		row := stream[j]
		out[i] = transcript.Message{
			Seq:     transcript.Sequence(j + 1),
			Parent:  transcript.Sequence(row.Parent),
			Author:  benchAuthors[row.Author],
			Content: row.Text(),
			At:      start.Add(time.Duration(j) * 7 * time.Second),
		}
	}
	return out
}

// benchAddLongThreads turns the newest rows of a benchPlainDesk into a benchThreadedDesk, in
// place, and returns them. The rows it rewires stay valid: their parents are older, and rows
// that answered them now answer a reply.
func benchAddLongThreads(rows []transcript.Message) []transcript.Message {
	head := len(rows) - 1
	patch := func(age int, parent transcript.Sequence) {
		m := &rows[head-age]
		m.Parent, m.Content = parent, benchContents[age%len(benchContents)]
	}
	patch(benchDenseRootAge, 0)
	for age := 0; age < benchDenseSpan; age += 2 {
		patch(age, benchAgeSeq(benchDenseRootAge))
	}
	patch(benchSparseRootAge, 0)
	for age := 1; age < benchSparseRootAge; age += benchSparseStride {
		patch(age, benchAgeSeq(benchSparseRootAge))
	}
	return rows
}

// benchStreamRows is the size of the one generated stream every desk is cut from: a desk of n
// rows is its newest n rows (Seq benchStreamRows-n+1 to benchStreamRows), so desks of every
// size share their newest rows and a projection from the head does the same work on each.
// Rows whose parent falls below a desk's oldest row keep it: a host's log may hold such rows.
const benchStreamRows = 1_000_000

// benchAgeSeq returns the sequence of the row age rows below the head of every desk.
func benchAgeSeq(age int) transcript.Sequence { return transcript.Sequence(benchStreamRows - age) }

type benchDeskKey struct {
	shape benchShape
	n     int
}

var benchDesks = struct {
	sync.Mutex
	stream []benchdesk.Row
	m      map[benchDeskKey]*memlog.Log
}{m: make(map[benchDeskKey]*memlog.Log)}

// benchDesk returns the n-row desk of the given shape (n <= benchStreamRows), built on first
// use and kept until a benchmark calls benchOnly without it.
func benchDesk(tb testing.TB, shape benchShape, n int) *memlog.Log {
	tb.Helper()
	benchDesks.Lock()
	defer benchDesks.Unlock()
	return benchDeskLocked(tb, benchDeskKey{shape, n})
}

func benchDeskLocked(tb testing.TB, key benchDeskKey) *memlog.Log {
	if l, ok := benchDesks.m[key]; ok {
		return l
	}
	if benchDesks.stream == nil {
		benchDesks.stream = benchdesk.Stream(benchStreamRows)
	}
	rows := benchMessages(benchDesks.stream, key.n)
	switch key.shape {
	case benchThreadedDesk:
		benchAddLongThreads(rows)
	case benchAsideDesk:
		benchdesk.Asides(rows, benchAsidePercent)
	case benchCorrectedDesk:
		rows, _ = benchdesk.Corrections(rows, benchCorrectionPercent)
	case benchUncorrectedDesk:
		_, rows = benchdesk.Corrections(rows, benchCorrectionPercent)
	}
	l, err := memlog.From(rows)
	if err != nil {
		tb.Fatal(err)
	}
	benchDesks.m[key] = l
	return l
}

// benchOnly returns the desks keys name, in order, and drops every other desk, so that the
// heap the garbage collector marks during a benchmark holds what it measures and no more
// (a memlog desk is about 100 bytes of pointer-holding memory per row). It collects the
// garbage of any change before the timed loops start.
func benchOnly(b *testing.B, keys ...benchDeskKey) []*memlog.Log {
	b.Helper()
	benchDesks.Lock()
	defer benchDesks.Unlock()
	changed := false
	for key := range benchDesks.m {
		if !slices.Contains(keys, key) {
			delete(benchDesks.m, key)
			changed = true
		}
	}
	out := make([]*memlog.Log, len(keys))
	for i, key := range keys {
		_, had := benchDesks.m[key]
		out[i] = benchDeskLocked(b, key)
		changed = changed || !had
	}
	if changed {
		runtime.GC()
	}
	return out
}

// benchNaivePaged is the channel view the way chat hosts build it today: read the whole
// desk through the port, page by page, then filter in memory.
func benchNaivePaged(ctx context.Context, log transcript.Log, window int) ([]transcript.Message, error) {
	var all []transcript.Message // newest first
	var before transcript.Sequence
	for {
		pg, err := log.ReadBefore(ctx, before, transcript.PageSize)
		if err != nil {
			return nil, err
		}
		all = append(all, pg.Messages...)
		if pg.Next == 0 {
			break
		}
		before = pg.Next
	}
	slices.Reverse(all)
	return benchNaiveFilter(all, window), nil
}

// benchNaiveClone is benchNaivePaged with the cheapest read-everything there is: one copy
// of memlog's rows.
func benchNaiveClone(desk *memlog.Log, window int) []transcript.Message {
	return benchNaiveFilter(desk.Messages(), window)
}

// benchNaiveFilter returns the newest window rows of the channel view of rows (oldest
// first): non-blank roots and each root's oldest non-blank direct reply.
func benchNaiveFilter(rows []transcript.Message, window int) []transcript.Message {
	replied := make(map[transcript.Sequence]bool) // root → its first reply was found
	var view []transcript.Message
	for _, m := range rows {
		switch {
		case m.Parent == 0:
			replied[m.Seq] = false // a blank root still anchors replies
			if !m.Blank() {
				view = append(view, m)
			}
		case m.Blank():
		default:
			if done, isRoot := replied[m.Parent]; isRoot && !done {
				replied[m.Parent] = true
				view = append(view, m)
			}
		}
	}
	return view[max(0, len(view)-window):]
}

// benchCopyFloor reads the newest reads*limit rows of log with no processing at all: the
// least any walk over them can cost.
func benchCopyFloor(ctx context.Context, log transcript.Log, reads, limit int) (rows int, err error) {
	var before transcript.Sequence
	for range reads {
		pg, err := log.ReadBefore(ctx, before, limit)
		if err != nil {
			return rows, err
		}
		rows += len(pg.Messages)
		before = pg.Next
	}
	return rows, nil
}

// benchProjectFunc is Project or one of its variants.
type benchProjectFunc func(context.Context, transcript.Log, transcript.Query) (transcript.Projection, error)

var benchPlans = []struct {
	name    string
	project benchProjectFunc
}{
	{"growing", transcript.Project},
	{"fixed", transcript.ProjectFixedReads},
}

// benchProject times one projection and reports its rows scanned and host reads per op.
func benchProject(b *testing.B, project benchProjectFunc, log transcript.Log, q transcript.Query) {
	b.Helper()
	ctx := context.Background()
	var proj transcript.Projection
	var err error
	report := benchdesk.CPU(b)
	for b.Loop() {
		proj, err = project(ctx, log, q)
		if err != nil {
			b.Fatal(err)
		}
	}
	report()
	b.ReportMetric(float64(proj.Scanned), "rows/op")
	b.ReportMetric(float64(proj.Reads), "reads/op")
}

// benchProjectHeads times channel projections (Window 30) from each of benchHeads in turn
// and reports their mean rows scanned and host reads per op.
func benchProjectHeads(b *testing.B, log transcript.Log) {
	b.Helper()
	benchProjectHeadsAs(b, log, transcript.Author{})
}

// benchProjectHeadsAs is benchProjectHeads for viewer, also reporting the mean elided rows.
func benchProjectHeadsAs(b *testing.B, log transcript.Log, viewer transcript.Author) {
	b.Helper()
	ctx := context.Background()
	q := benchChannelQuery(0)
	q.Viewer = viewer
	elided := 0
	var ops, scanned, reads int
	report := benchdesk.CPU(b)
	for b.Loop() {
		q.Before = benchHeads[ops%len(benchHeads)]
		proj, err := transcript.Project(ctx, log, q)
		if err != nil {
			b.Fatal(err)
		}
		ops, scanned, reads = ops+1, scanned+proj.Scanned, reads+proj.Reads
		for _, e := range proj.Elided {
			elided += e.Count
		}
	}
	report()
	b.ReportMetric(float64(scanned)/float64(ops), "rows/op")
	b.ReportMetric(float64(reads)/float64(ops), "reads/op")
	if viewer != (transcript.Author{}) {
		b.ReportMetric(float64(elided)/float64(ops), "elided/op")
	}
}

// benchHeads are 64 Before bounds spread over the newest 6,200 rows of every desk, so that
// a benchmark can average over desk states rather than trust the one at the head: the rows a
// channel view needs vary with how far back the newest threads' roots are.
var benchHeads = func() []transcript.Sequence {
	out := make([]transcript.Sequence, 64)
	for k := range out {
		out[k] = benchAgeSeq(97*k) + 1
	}
	return out
}()

func benchChannelQuery(window int) transcript.Query {
	return transcript.Query{Conversation: transcript.Conversation{Desk: "bench"}, Window: window}
}

func benchThreadQuery(root, before transcript.Sequence, window int) transcript.Query {
	return transcript.Query{Conversation: transcript.Conversation{Desk: "bench", Thread: root}, Before: before, Window: window}
}

// benchNaiveRows is the size of the desk the naive channel view is measured on.
const benchNaiveRows = 100_000

// BenchmarkChannelVsNaive: target 1. The channel view (Window 30) of a 100,000-row desk, by
// Project and by reading the whole desk and filtering it.
func BenchmarkChannelVsNaive(b *testing.B) {
	desk := benchOnly(b, benchDeskKey{benchPlainDesk, benchNaiveRows})[0]
	ctx := context.Background()
	b.Run(fmt.Sprintf("rows=%d/impl=Project", benchNaiveRows), func(b *testing.B) {
		benchProject(b, transcript.Project, desk, benchChannelQuery(0))
	})
	b.Run(fmt.Sprintf("rows=%d/impl=Project-64heads", benchNaiveRows), func(b *testing.B) {
		benchProjectHeads(b, desk)
	})
	b.Run(fmt.Sprintf("rows=%d/impl=NaivePaged", benchNaiveRows), func(b *testing.B) {
		report := benchdesk.CPU(b)
		for b.Loop() {
			if _, err := benchNaivePaged(ctx, desk, transcript.SessionWindow); err != nil {
				b.Fatal(err)
			}
		}
		report()
		b.ReportMetric(benchNaiveRows, "rows/op")
		b.ReportMetric(float64((benchNaiveRows+transcript.PageSize-1)/transcript.PageSize), "reads/op")
	})
	b.Run(fmt.Sprintf("rows=%d/impl=NaiveClone", benchNaiveRows), func(b *testing.B) {
		report := benchdesk.CPU(b)
		for b.Loop() {
			benchNaiveClone(desk, transcript.SessionWindow)
		}
		report()
		b.ReportMetric(benchNaiveRows, "rows/op")
		b.ReportMetric(1, "reads/op")
	})
}

// benchDeskSizes are the desk sizes of target 2.
var benchDeskSizes = []int{10_000, 100_000, 1_000_000}

// BenchmarkChannelDeskSize: target 2. The same channel projections on desks of 10,000 to
// 1,000,000 rows that share their newest rows: from the head, and from each of benchHeads.
func BenchmarkChannelDeskSize(b *testing.B) {
	keys := make([]benchDeskKey, len(benchDeskSizes))
	for i, n := range benchDeskSizes {
		keys[i] = benchDeskKey{benchPlainDesk, n}
	}
	desks := benchOnly(b, keys...)
	for i, n := range benchDeskSizes {
		desk := desks[i]
		b.Run(fmt.Sprintf("at=head/rows=%d", n), func(b *testing.B) {
			benchProject(b, transcript.Project, desk, benchChannelQuery(0))
		})
	}
	for i, n := range benchDeskSizes {
		desk := desks[i]
		b.Run(fmt.Sprintf("at=64heads/rows=%d", n), func(b *testing.B) {
			benchProjectHeads(b, desk)
		})
	}
}

// benchBusyRows is the size of the benchThreadedDesk the thread views are measured on.
const benchBusyRows = 100_000

// BenchmarkFullScan: target 3. The thread view of the sparse thread reads all ScanLimit rows
// and then fetches the root, against plain copies of the same 2,048 rows out of memlog.
func BenchmarkFullScan(b *testing.B) {
	desk := benchOnly(b, benchDeskKey{benchThreadedDesk, benchBusyRows})[0]
	q := benchThreadQuery(benchAgeSeq(benchSparseRootAge), 0, 0)
	for _, plan := range benchPlans {
		b.Run("impl=Project-"+plan.name, func(b *testing.B) {
			benchProject(b, plan.project, desk, q)
		})
	}
	// Not a target: the channel view over the same 2,048 rows, with a window it never fills.
	b.Run("impl=ProjectChannel-growing", func(b *testing.B) {
		benchProject(b, transcript.Project, desk, benchChannelQuery(transcript.ScanLimit))
	})
	ctx := context.Background()
	for _, floor := range []struct{ reads, limit int }{{4, 512}, {1, 2048}} {
		b.Run(fmt.Sprintf("impl=Copy%dx%d", floor.reads, floor.limit), func(b *testing.B) {
			report := benchdesk.CPU(b)
			for b.Loop() {
				if _, err := benchCopyFloor(ctx, desk, floor.reads, floor.limit); err != nil {
					b.Fatal(err)
				}
			}
			report()
			b.ReportMetric(float64(floor.reads*floor.limit), "rows/op")
			b.ReportMetric(float64(floor.reads), "reads/op")
		})
	}
}

// benchScanLengths are the walks of target 4, per plan: each is the thread view of the sparse
// thread from a Before that puts its root exactly rows rows down, so the walk stops on it
// after reading exactly that many rows (for growing reads, rows is a sum of its reads).
var benchScanLengths = map[string][]int{
	"fixed":   {512, 1024, 2048},
	"growing": {60, 420, 1924},
}

// BenchmarkScanAllocs: target 4. Allocations of walks that scan 512 to 2,048 rows; they
// follow the number of host reads, not the number of rows.
func BenchmarkScanAllocs(b *testing.B) {
	desk := benchOnly(b, benchDeskKey{benchThreadedDesk, benchBusyRows})[0]
	root := benchAgeSeq(benchSparseRootAge)
	for _, plan := range benchPlans {
		for _, rows := range benchScanLengths[plan.name] {
			b.Run(fmt.Sprintf("plan=%s/rows=%d", plan.name, rows), func(b *testing.B) {
				benchProject(b, plan.project, desk, benchThreadQuery(root, root+transcript.Sequence(rows), 0))
			})
		}
	}
}

// benchReadSizeViews are the views of target 5, on desks of benchBusyRows rows.
var benchReadSizeViews = []struct {
	name  string
	shape benchShape
	query transcript.Query
}{
	{"channel-w30", benchPlainDesk, benchChannelQuery(30)},
	{"channel-w10", benchPlainDesk, benchChannelQuery(10)},
	{"dense-thread-w30", benchThreadedDesk, benchThreadQuery(benchAgeSeq(benchDenseRootAge), 0, 30)},
	{"dense-thread-w10", benchThreadedDesk, benchThreadQuery(benchAgeSeq(benchDenseRootAge), 0, 10)},
}

// BenchmarkReadSize: target 5. Project's growing reads against asking PageSize every read.
func BenchmarkReadSize(b *testing.B) {
	// Indexed by shape: benchPlainDesk is 0, benchThreadedDesk 1.
	desks := benchOnly(b, benchDeskKey{benchPlainDesk, benchBusyRows}, benchDeskKey{benchThreadedDesk, benchBusyRows})
	for _, v := range benchReadSizeViews {
		desk := desks[v.shape]
		for _, plan := range benchPlans {
			b.Run(fmt.Sprintf("view=%s/plan=%s", v.name, plan.name), func(b *testing.B) {
				benchProject(b, plan.project, desk, v.query)
			})
		}
	}
}

// BenchmarkAsides: the aside targets. Channel projections (Window 30, from each of benchHeads)
// of the 100,000-row desk without asides and of the same desk with benchAsidePercent% asides,
// viewed by benchdesk.Outsider, who reads none of them, and by the operator, who reads all.
// The desk without asides is measured against the code before asides with
// scripts/bench-vs.sh (BENCHMARKS.md).
func BenchmarkAsides(b *testing.B) {
	desks := benchOnly(b, benchDeskKey{benchPlainDesk, benchNaiveRows}, benchDeskKey{benchAsideDesk, benchNaiveRows})
	b.Run("asides=0/viewer=outsider", func(b *testing.B) {
		benchProjectHeadsAs(b, desks[0], benchdesk.Outsider)
	})
	b.Run(fmt.Sprintf("asides=%d/viewer=outsider", benchAsidePercent), func(b *testing.B) {
		benchProjectHeadsAs(b, desks[1], benchdesk.Outsider)
	})
	b.Run(fmt.Sprintf("asides=%d/viewer=operator", benchAsidePercent), func(b *testing.B) {
		benchProjectHeadsAs(b, desks[1], transcript.Operator())
	})
}

// BenchmarkCorrections: the correction target. Channel projections (Window 30, from each of
// benchHeads) of the 100,000-row desk with benchCorrectionPercent% of its rows edits and of
// the same desk without those rows: the walk reads past the edits as past blank rows.
func BenchmarkCorrections(b *testing.B) {
	desks := benchOnly(b, benchDeskKey{benchUncorrectedDesk, benchNaiveRows}, benchDeskKey{benchCorrectedDesk, benchNaiveRows})
	b.Run("corrections=0", func(b *testing.B) { benchProjectHeads(b, desks[0]) })
	b.Run(fmt.Sprintf("corrections=%d", benchCorrectionPercent), func(b *testing.B) { benchProjectHeads(b, desks[1]) })
}

// TestBenchScenarios checks that each benchmark measures what it claims: the naive views
// equal Project's, the full scan reads ScanLimit rows and fetches the root, the scan
// lengths are exact, and both read benchPlans return the same projection.
func TestBenchScenarios(t *testing.T) {
	ctx := context.Background()
	seqs := func(ms []transcript.Message) []transcript.Sequence {
		out := make([]transcript.Sequence, len(ms))
		for i, m := range ms {
			out[i] = m.Seq
		}
		return out
	}
	project := func(t *testing.T, f benchProjectFunc, log transcript.Log, q transcript.Query) transcript.Projection {
		t.Helper()
		proj, err := f(ctx, log, q)
		if err != nil {
			t.Fatal(err)
		}
		return proj
	}
	if testing.Short() {
		t.Skip("builds the benchmarks' desks, up to 1,000,000 rows")
	}
	sizes := benchDeskSizes

	t.Run("desk", func(t *testing.T) {
		rows := benchDesk(t, benchPlainDesk, benchNaiveRows).Messages()
		oldest := rows[0].Seq
		var roots, blank, nested int
		for _, m := range rows {
			switch {
			case m.Blank():
				blank++
			case m.Parent == 0:
				roots++
			case m.Parent >= oldest && rows[m.Parent-oldest].Parent != 0:
				nested++
			}
		}
		t.Logf("%d rows: %d non-blank roots, %d non-blank replies (%d to a reply), %d blank",
			len(rows), roots, len(rows)-roots-blank, nested, blank)
		if roots*2 <= len(rows) {
			t.Errorf("only %d of %d rows are non-blank roots; want most", roots, len(rows))
		}
	})

	t.Run("asides", func(t *testing.T) {
		rows := benchDesk(t, benchAsideDesk, benchNaiveRows).Messages()
		asides := 0
		for _, m := range rows {
			if m.IsAside() {
				asides++
				if m.ReadableBy(benchdesk.Outsider) {
					t.Fatalf("row %d: the outsider reads an aside", m.Seq)
				}
			}
		}
		if pct := 100 * asides / len(rows); pct < benchAsidePercent-3 || pct > benchAsidePercent+3 {
			t.Errorf("%d%% of the aside desk's rows are asides, want about %d%%", pct, benchAsidePercent)
		}
		p := project(t, transcript.Project, benchDesk(t, benchAsideDesk, benchNaiveRows), transcript.Query{Viewer: benchdesk.Outsider})
		if len(p.Elided) == 0 || len(p.Messages) != transcript.SessionWindow {
			t.Errorf("the outsider's view holds %d messages and %d elisions", len(p.Messages), len(p.Elided))
		}
	})

	t.Run("naive", func(t *testing.T) {
		for _, n := range []int{10_000, benchNaiveRows} {
			desk := benchDesk(t, benchPlainDesk, n)
			want := seqs(project(t, transcript.Project, desk, benchChannelQuery(0)).Messages)
			paged, err := benchNaivePaged(ctx, desk, transcript.SessionWindow)
			if err != nil {
				t.Fatal(err)
			}
			if got := seqs(paged); !slices.Equal(got, want) {
				t.Errorf("rows=%d: naive paged view %v, Project %v", n, got, want)
			}
			if got := seqs(benchNaiveClone(desk, transcript.SessionWindow)); !slices.Equal(got, want) {
				t.Errorf("rows=%d: naive clone view %v, Project %v", n, got, want)
			}
		}
	})

	t.Run("sizes", func(t *testing.T) {
		for _, before := range append([]transcript.Sequence{0}, benchHeads...) {
			q := benchChannelQuery(0)
			q.Before = before
			var first transcript.Projection
			for i, n := range sizes {
				proj := project(t, transcript.Project, benchDesk(t, benchPlainDesk, n), q)
				if i == 0 {
					first = proj
				} else if !slices.Equal(seqs(proj.Messages), seqs(first.Messages)) || proj.Scanned != first.Scanned || proj.Reads != first.Reads {
					t.Errorf("before %d: rows=%d gives %v in %d rows, %d reads; rows=%d gives %v in %d rows, %d reads",
						before, n, seqs(proj.Messages), proj.Scanned, proj.Reads, sizes[0], seqs(first.Messages), first.Scanned, first.Reads)
				}
			}
		}
	})

	t.Run("plans", func(t *testing.T) {
		check := func(t *testing.T, log transcript.Log, q transcript.Query) {
			t.Helper()
			g, f := project(t, transcript.Project, log, q), project(t, transcript.ProjectFixedReads, log, q)
			if !slices.Equal(seqs(g.Messages), seqs(f.Messages)) || g.Partial != f.Partial || g.Head != f.Head {
				t.Errorf("%+v: growing reads give %v (partial %v), fixed %v (partial %v)",
					q, seqs(g.Messages), g.Partial, seqs(f.Messages), f.Partial)
			}
			t.Logf("%+v: growing %d rows in %d reads, fixed %d rows in %d reads",
				q, g.Scanned, g.Reads, f.Scanned, f.Reads)
		}
		for _, v := range benchReadSizeViews {
			check(t, benchDesk(t, v.shape, benchBusyRows), v.query)
		}
	})

	desk := benchDesk(t, benchThreadedDesk, benchBusyRows)
	root := benchAgeSeq(benchSparseRootAge)

	t.Run("full-scan", func(t *testing.T) {
		for _, plan := range benchPlans {
			proj := project(t, plan.project, desk, benchThreadQuery(root, 0, 0))
			replies := (transcript.ScanLimit-1)/benchSparseStride + 1 // ages 1, 201, ... below ScanLimit
			if proj.Scanned != transcript.ScanLimit || !proj.Partial || len(proj.Messages) != 1+replies || proj.Messages[0].Seq != root {
				t.Errorf("%s: scanned %d, partial %v, %d messages starting %v; want %d, true, %d starting %d",
					plan.name, proj.Scanned, proj.Partial, len(proj.Messages), seqs(proj.Messages[:1]), transcript.ScanLimit, 1+replies, root)
			}
		}
		channel := project(t, transcript.Project, desk, benchChannelQuery(transcript.ScanLimit))
		if channel.Scanned != transcript.ScanLimit || !channel.Partial {
			t.Errorf("channel: scanned %d, partial %v; want %d, true", channel.Scanned, channel.Partial, transcript.ScanLimit)
		}
		for _, floor := range []struct{ reads, limit int }{{4, 512}, {1, 2048}} {
			if rows, err := benchCopyFloor(ctx, desk, floor.reads, floor.limit); err != nil || rows != transcript.ScanLimit {
				t.Errorf("benchCopyFloor(%d, %d) = %d, %v; want %d rows", floor.reads, floor.limit, rows, err, transcript.ScanLimit)
			}
		}
	})

	t.Run("scan-lengths", func(t *testing.T) {
		for _, plan := range benchPlans {
			for _, rows := range benchScanLengths[plan.name] {
				proj := project(t, plan.project, desk, benchThreadQuery(root, root+transcript.Sequence(rows), 0))
				if proj.Scanned != rows || proj.Partial || len(proj.Messages) == 0 || proj.Messages[0].Seq != root {
					t.Errorf("%s, rows=%d: scanned %d in %d reads, partial %v, messages %v",
						plan.name, rows, proj.Scanned, proj.Reads, proj.Partial, seqs(proj.Messages))
				}
			}
		}
	})
}

// TestBenchCorrectedDesk checks that BenchmarkCorrections measures what it claims: 10% of
// the corrected desk's rows are edits, and its channel views hold the rows the desk without
// them holds, from every one of benchHeads.
func TestBenchCorrectedDesk(t *testing.T) {
	ctx := context.Background()
	with, without := benchDesk(t, benchCorrectedDesk, benchNaiveRows), benchDesk(t, benchUncorrectedDesk, benchNaiveRows)
	rows := with.Messages()
	edits := 0
	for _, m := range rows {
		if m.IsCorrection() {
			edits++
		}
	}
	if pct := 100 * float64(edits) / float64(len(rows)); pct < 9.5 || pct > 10.5 || without.Len() != len(rows)-edits {
		t.Fatalf("%d edits in %d rows (%.1f%%), %d rows without them; want 10%% and the rest", edits, len(rows), pct, without.Len())
	}
	for _, before := range benchHeads {
		q := benchChannelQuery(30)
		q.Before = before
		a, err := transcript.Project(ctx, with, q)
		if err != nil {
			t.Fatal(err)
		}
		b, err := transcript.Project(ctx, without, q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.EqualFunc(a.Messages, b.Messages, func(x, y transcript.Message) bool { return x.Seq == y.Seq }) || len(a.Messages) != 30 {
			t.Fatalf("before %d: the views of the desks with and without edits differ, or are not full", before)
		}
	}
}
