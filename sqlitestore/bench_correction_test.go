package sqlitestore

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// BenchmarkAppendCorrection appends one row at a time to a fresh store, as BenchmarkAppend
// does: a root (kind=plain); an edit of one of about 1,000 stored roots in turn (kind=edit: the
// insert, and one UPDATE of the target); a redaction of a root edited twice (kind=redact:
// the insert, the target's UPDATE and the erasure of its two edits). The redactions'
// targets are appended 200 at a time (with their edits, in one batch) while the timer is
// stopped; kind=redact reports no CPU time, which would count those batches. kind=paired
// does one of each an iteration, on one desk, and reports the median time of each kind's
// appends and their ratios, which a shared machine's load, hitting all three alike,
// disturbs far less than the separate runs. BENCHMARKS.md holds the ratios to kind=plain.
func BenchmarkAppendCorrection(b *testing.B) {
	ctx := context.Background()
	var msgs []transcript.Message // roots that are not blank, to correct
	for _, m := range benchMessages(1200) {
		if m.Parent = 0; !m.Blank() {
			msgs = append(msgs, m)
		}
	}
	edit := func(target transcript.Sequence, author transcript.Author, i int) transcript.Message {
		return transcript.Message{Corrects: target, Author: author, Content: msgs[(i+500)%len(msgs)].Content + " (edited)"}
	}
	withRoots := func(b *testing.B) *Store { // a fresh store, msgs its desk's rows
		st := benchFreshStore(b)
		if err := st.AppendBatch(ctx, benchDeskName, msgs); err != nil {
			b.Fatal(err)
		}
		return st
	}
	b.Run("kind=plain", func(b *testing.B) {
		st := withRoots(b)
		i := 0
		defer benchCPU(b)()
		for b.Loop() {
			if _, err := st.Append(ctx, benchDeskName, msgs[i%len(msgs)]); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("kind=edit", func(b *testing.B) {
		st := withRoots(b)
		i := 0
		defer benchCPU(b)()
		for b.Loop() {
			k := i % len(msgs)
			if _, err := st.Append(ctx, benchDeskName, edit(transcript.Sequence(k+1), msgs[k].Author, i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("kind=paired", func(b *testing.B) {
		st := withRoots(b)
		head := transcript.Sequence(len(msgs))
		var targets []transcript.Message
		var plain, edits, redactions []time.Duration
		timed := func(into *[]time.Duration, m transcript.Message) {
			start := time.Now()
			if _, err := st.Append(ctx, benchDeskName, m); err != nil {
				b.Fatal(err)
			}
			*into = append(*into, time.Since(start))
			head++
		}
		i := 0
		for b.Loop() {
			if len(targets) == 0 {
				targets, head = benchEditedRoots(b, st, msgs, head, 200, edit)
			}
			k := i % len(msgs)
			timed(&plain, msgs[k])
			timed(&edits, edit(transcript.Sequence(k+1), msgs[k].Author, i))
			timed(&redactions, transcript.Message{Corrects: targets[0].Seq, Author: targets[0].Author, Redacted: true})
			targets = targets[1:]
			i++
		}
		p, e, r := median(plain), median(edits), median(redactions)
		b.ReportMetric(p, "plain-ns")
		b.ReportMetric(e, "edit-ns")
		b.ReportMetric(r, "redact-ns")
		b.ReportMetric(e/p, "edit/plain")
		b.ReportMetric(r/p, "redact/plain")
	})
	b.Run("kind=redact", func(b *testing.B) {
		st := withRoots(b)
		head := transcript.Sequence(len(msgs))
		var targets []transcript.Message // stored roots, each edited twice, to redact
		i := 0
		for b.Loop() {
			if len(targets) == 0 {
				b.StopTimer()
				targets, head = benchEditedRoots(b, st, msgs, head, 200, edit)
				b.StartTimer()
			}
			t := targets[0]
			targets = targets[1:]
			if _, err := st.Append(ctx, benchDeskName, transcript.Message{Corrects: t.Seq, Author: t.Author, Redacted: true}); err != nil {
				b.Fatal(err)
			}
			head++
			i++
		}
	})
}

// benchEditedRoots appends n roots, each followed by two edits of it, in one batch after
// head, and returns the roots as stored (their Seq and Author) and the desk's new head.
func benchEditedRoots(b *testing.B, st *Store, msgs []transcript.Message, head transcript.Sequence, n int, edit func(transcript.Sequence, transcript.Author, int) transcript.Message) ([]transcript.Message, transcript.Sequence) {
	b.Helper()
	batch := make([]transcript.Message, 0, 3*n)
	roots := make([]transcript.Message, n)
	for k := range n {
		m := msgs[(int(head)+k)%len(msgs)]
		root := transcript.BatchParent(len(batch))
		batch = append(batch, m, edit(root, m.Author, k), edit(root, m.Author, k+1))
		roots[k] = transcript.Message{Seq: head + transcript.Sequence(3*k+1), Author: m.Author}
	}
	if err := st.AppendBatch(context.Background(), benchDeskName, batch); err != nil {
		b.Fatal(err)
	}
	return roots, head + transcript.Sequence(len(batch))
}

// median returns the median of ds in nanoseconds; 0 for none.
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	ds = slices.Clone(ds)
	slices.Sort(ds)
	return float64(ds[len(ds)/2])
}
