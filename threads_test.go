package transcript_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/proptest"
	"github.com/sharedesk/transcript/memlog"
)

// modelThreads is ListThreads' definition over all of a log's rows (ascending), word for
// word: the roots of P the viewer may read with at least one qualifying direct reply in P,
// newest first, the first Limit of them; and whether the walk must end partial.
func modelThreads(rows []transcript.Message, q transcript.ThreadQuery) ([]transcript.Thread, int, bool) {
	limit := q.Limit
	switch {
	case limit <= 0:
		limit = transcript.DefaultThreadLimit
	case limit > transcript.MaxThreadLimit:
		limit = transcript.MaxThreadLimit
	}
	var older []transcript.Message // newest first
	for _, m := range slices.Backward(rows) {
		if q.Before == 0 || m.Seq < q.Before {
			older = append(older, m)
		}
	}
	p := older[:min(len(older), transcript.ScanLimit)]
	var threads []transcript.Thread
	last := -1 // index in p of the last listed root
	for i, root := range p {
		if root.Parent != 0 || !modelReadable(root, q.Viewer) || len(threads) == limit {
			continue
		}
		t := transcript.Thread{Root: root}
		for _, m := range p {
			if m.Parent == root.Seq && !modelHidden(m, q.Viewer) {
				t.Replies++
				t.Newest = max(t.Newest, m.Seq)
			}
		}
		if t.Replies > 0 {
			threads = append(threads, t)
			last = i
		}
	}
	partial := len(older) > transcript.ScanLimit && len(threads) < limit
	if len(threads) < limit {
		last = len(p) - 1
	}
	return threads, last, partial
}

func TestListThreadsModel(t *testing.T) {
	t.Parallel()
	desks := proptest.Desks(600, 100)
	if testing.Short() {
		desks = 100
	}
	listed := 0
	for i := range desks {
		seed := uint64(i)
		r := rand.New(rand.NewPCG(seed, 0x7a7e))
		d := modelGenDesk(r, modelShape{
			rows:     []int{r.IntN(40), r.IntN(300), 2000 + r.IntN(2500)}[r.IntN(3)],
			rootP:    r.Float64(),
			blankP:   r.Float64() * 0.3,
			gapP:     r.Float64() * 0.2,
			danglesP: r.Float64() * 0.1,
			asideP:   []float64{0, 0.2, 0.6}[r.IntN(3)],
		})
		log, err := memlog.From(d.rows)
		if err != nil {
			t.Fatal(err)
		}
		for range 4 {
			q := transcript.ThreadQuery{
				Before: []transcript.Sequence{0, d.head() / 2, d.head() + 1, 1}[r.IntN(4)],
				Limit:  []int{0, 1, 3, 50, 500}[r.IntN(5)],
				Viewer: modelViewers[r.IntN(len(modelViewers))],
			}
			want, last, partial := modelThreads(d.rows, q)
			for _, short := range []bool{false, true} {
				rec := &modelRecorder{log: log}
				if short {
					rec.short = rand.New(rand.NewPCG(seed, 2))
				}
				got, err := transcript.ListThreads(context.Background(), rec, q)
				if err != nil {
					t.Fatalf("seed %d: ListThreads(%+v): %v", seed, q, err)
				}
				var bad []string
				if diff := gocmp.Diff(want, got.Threads, cmpopts.EquateEmpty()); diff != "" {
					bad = append(bad, "threads (-model +ListThreads):\n"+diff)
				}
				if got.Partial != partial {
					bad = append(bad, fmt.Sprintf("Partial %v, want %v", got.Partial, partial))
				}
				bad = append(bad, modelCheckReads(rec.calls, transcript.Query{Before: q.Before}, transcript.Projection{Scanned: got.Scanned, Reads: got.Reads})...)
				// The walk stops on the page holding the last listed root.
				rows := 0
				for k, c := range rec.calls {
					if rows > last && last >= 0 {
						bad = append(bad, fmt.Sprintf("read %d made after the page holding row %d settled the list", k+1, last))
						break
					}
					rows += len(c.page.Messages)
				}
				if len(bad) > 0 {
					t.Fatalf("seed %d, short %v, query %+v: %v%s", seed, short, q, bad, modelDeskString(d))
				}
			}
			listed += len(want)
		}
	}
	if listed < desks {
		t.Errorf("only %d threads listed over %d desks: the generator reaches too little", listed, desks)
	}
}

func TestListThreadsLeaksNothing(t *testing.T) {
	l := memlog.New()
	ctx := context.Background()
	for _, m := range []transcript.Message{
		{Author: opAuthor, Content: "SECRET root", Audience: authors(triageAuthor)},
		{Parent: 1, Author: triageAuthor, Content: "SECRET reply"},
		{Author: anaAuthor, Content: "public root"},
		{Parent: 3, Author: triageAuthor, Content: "SECRET private reply", Audience: authors(anaAuthor)},
		{Parent: 3, Author: reviewAuthor, Content: "public reply"},
	} {
		if _, err := l.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := transcript.ListThreads(ctx, l, transcript.ThreadQuery{Viewer: reviewAuthor})
	if err != nil {
		t.Fatal(err)
	}
	want := []transcript.Thread{{Root: transcript.Message{Seq: 3, Author: anaAuthor, Content: "public root"}, Replies: 1, Newest: 5}}
	if diff := gocmp.Diff(want, got.Threads, cmpopts.IgnoreFields(transcript.Message{}, "At")); diff != "" {
		t.Errorf("the reviewer's threads (-want +got):\n%s", diff)
	}
	got, _ = transcript.ListThreads(ctx, l, transcript.ThreadQuery{Viewer: triageAuthor})
	if len(got.Threads) != 2 || got.Threads[0].Replies != 2 || got.Threads[1].Root.Seq != 1 {
		t.Errorf("triage's threads: %+v", got.Threads)
	}
}
