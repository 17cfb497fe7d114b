package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// benchKey returns the key of row i of batch, as an importer might name it (sqlitestore's
// benchmarks name theirs the same way).
func benchKey(batch, i int) string {
	return "slack:" + strconv.Itoa(1712345678+batch) + "." + strconv.Itoa(100000+i)
}

// BenchmarkAppendKey: the latency of one Append of a root, as BenchmarkAppend measures it,
// without a key (key=none: BEGIN, the head moved, the row inserted, COMMIT, in one round
// trip) and with a fresh unique key each (key=new: the same round trip, the insert made
// conditional on the key's absence; and one more index entry).
func BenchmarkAppendKey(b *testing.B) {
	for _, keyed := range []bool{false, true} {
		name := "key=none"
		if keyed {
			name = "key=new"
		}
		b.Run(name, func(b *testing.B) {
			st, _ := benchStore(b)
			ctx := context.Background()
			desk := fmt.Sprintf("key-%d", rand.Uint64())
			m := loadRow(2)
			m.Parent, m.Seq, m.At = 0, 0, time.Time{}
			i := 0
			for b.Loop() {
				if keyed {
					m.Key = benchKey(0, i)
				}
				if _, err := st.Append(ctx, desk, m); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkAppendKeyPaired appends a row without a key to one desk and a row with a fresh
// key to another, one of each per iteration, in turns (the keyless one first on even
// iterations, second on odd ones, so that neither always follows the other's commit), and
// reports each one's time per append and their ratio: on a shared machine both see the
// same stretches of load, so the ratio holds still where BenchmarkAppendKey's times spread.
func BenchmarkAppendKeyPaired(b *testing.B) {
	st, _ := benchStore(b)
	ctx := context.Background()
	prefix := fmt.Sprintf("keypair-%d-", rand.Uint64())
	m := loadRow(2)
	m.Parent, m.Seq, m.At = 0, 0, time.Time{}
	appendTo := func(desk string, m transcript.Message) {
		if _, err := st.Append(ctx, desk, m); err != nil {
			b.Fatal(err)
		}
	}
	var keyed transcript.Message
	noneTime, keyTime := timePairs(b,
		func(i int) { keyed = m; keyed.Key = benchKey(0, i) },
		func() { appendTo(prefix+"none", m) },
		func() { appendTo(prefix+"key", keyed) })
	b.ReportMetric(float64(noneTime.Nanoseconds())/float64(b.N), "none-ns/op")
	b.ReportMetric(float64(keyTime.Nanoseconds())/float64(b.N), "key-ns/op")
	b.ReportMetric(float64(keyTime)/float64(noneTime), "key/none")
}

// BenchmarkAppendBatchKey stores batches of benchBatch (1,000) rows (batchMessages:
// parents as BatchParent) through AppendBatch: without keys (key=none, one desk); with
// fresh unique keys into one desk (key=new: each batch an import of new lines, whose keys
// the lookup does not find); with fresh unique keys into a new desk each (key=first: the
// first import of a file); and all present (key=present: a re-import of the batch the desk
// holds, which reads the 1,000 rows, matches them and writes nothing). ns/row is per row of
// the batch.
func BenchmarkAppendBatchKey(b *testing.B) {
	base := batchMessages(benchBatch)
	for _, mode := range []string{"none", "new", "first", "present"} {
		b.Run("key="+mode, func(b *testing.B) {
			st, _ := benchStore(b)
			ctx := context.Background()
			prefix := fmt.Sprintf("batchkey-%s-%d", mode, rand.Uint64())
			msgs, desk, batch := slices.Clone(base), prefix, 0
			keyed := func(batch int) {
				for i := range msgs {
					msgs[i].Key = benchKey(batch, i)
				}
			}
			if mode == "present" {
				keyed(0)
				if err := st.AppendBatch(ctx, desk, msgs); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				switch mode {
				case "new":
					keyed(batch) // 1,000 short strings: a small part of the batch's cost
				case "first":
					keyed(0)
					desk = prefix + "-" + strconv.Itoa(batch)
				}
				if err := st.AppendBatch(ctx, desk, msgs); err != nil {
					b.Fatal(err)
				}
				batch++
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/row")
		})
	}
}

// timePairs runs, at each iteration i of b.Loop, prepare(i) and then x and y, in turns (x
// first on even iterations, second on odd ones, so that neither always follows the other),
// and returns the time x and y took in all, prepare's left out.
func timePairs(b *testing.B, prepare func(i int), x, y func()) (xTime, yTime time.Duration) {
	timed := func(f func()) time.Duration {
		start := time.Now()
		f()
		return time.Since(start)
	}
	for i := 0; b.Loop(); i++ {
		prepare(i)
		if i%2 == 0 {
			xTime += timed(x)
			yTime += timed(y)
		} else {
			yTime += timed(y)
			xTime += timed(x)
		}
	}
	return xTime, yTime
}
