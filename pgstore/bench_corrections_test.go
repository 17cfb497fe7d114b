package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// BenchmarkAppendCorrectionPaired appends, per iteration, a plain root to one desk and a
// correction to another, in turns (the plain one first on even iterations, second on odd
// ones), and reports each one's time per append and their ratio, as
// BenchmarkAppendKeyPaired does. A correction takes the locked way (its target is read
// under the desk's lock, then the row inserted and the target updated, in two round trips
// where a root takes one). kind=edit edits one stored row again and again; kind=redaction
// redacts a row that two edits corrected before (appended, untimed, in the iteration), so
// that the redaction updates the row and erases both edits. kind=reply appends a reply to a
// stored row instead, which takes the same two round trips (its parent read under the lock):
// what the locked way costs without a correction.
func BenchmarkAppendCorrectionPaired(b *testing.B) {
	for _, kind := range []string{"edit", "redaction", "reply"} {
		b.Run("kind="+kind, func(b *testing.B) {
			st, _ := benchStore(b)
			ctx := context.Background()
			prefix := fmt.Sprintf("corrpair-%d-", rand.Uint64())
			plain := loadRow(2)
			plain.Parent, plain.Seq, plain.At = 0, 0, time.Time{}
			mustAppend := func(desk string, m transcript.Message) transcript.Message {
				stored, err := st.Append(ctx, desk, m)
				if err != nil {
					b.Fatal(err)
				}
				return stored
			}
			target := mustAppend(prefix+"corr", plain)
			correction := func() transcript.Message {
				switch kind {
				case "edit":
					return transcript.Message{Author: plain.Author, Corrects: target.Seq, Content: plain.Content}
				case "reply":
					return transcript.Message{Author: plain.Author, Parent: target.Seq, Content: plain.Content}
				}
				target = mustAppend(prefix+"corr", plain)
				for range 2 {
					mustAppend(prefix+"corr", transcript.Message{Author: plain.Author, Corrects: target.Seq, Content: plain.Content})
				}
				return transcript.Message{Author: plain.Author, Corrects: target.Seq, Redacted: true}
			}
			var c transcript.Message
			plainTime, corrTime := timePairs(b,
				func(int) { c = correction() },
				func() { mustAppend(prefix+"plain", plain) },
				func() { mustAppend(prefix+"corr", c) })
			b.ReportMetric(float64(plainTime.Nanoseconds())/float64(b.N), "plain-ns/op")
			b.ReportMetric(float64(corrTime.Nanoseconds())/float64(b.N), "correction-ns/op")
			b.ReportMetric(float64(corrTime)/float64(plainTime), "correction/plain")
		})
	}
}
