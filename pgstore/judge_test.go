package pgstore_test

import (
	"math"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestJudge pins the rule by which a Store takes a standby's answer: a read from the newest
// needs the newest row the Store knows of; a read below a bound needs the row just below
// it, and waits for it only when the Store knows that row is committed; and when the Store
// knows of a commit above the bound (a correction may have changed the rows below it), the
// standby must have replayed it.
func TestJudge(t *testing.T) {
	t.Parallel()
	rows := func(seqs ...transcript.Sequence) []transcript.Message {
		var out []transcript.Message
		for _, s := range seqs {
			out = append(out, transcript.Message{Seq: s})
		}
		return out
	}
	const newest = math.MaxInt64
	for _, c := range []struct {
		name         string
		rows         []transcript.Message
		bound, known int64
		head         int64 // the standby's head of the desk; newest: not read
		want         string
	}{
		{"newest, nothing known, empty answer", nil, newest, 0, newest, "whole"},
		{"newest, at the fence", rows(7, 6), newest, 7, newest, "whole"},
		{"newest, past the fence", rows(9, 8), newest, 7, newest, "whole"},
		{"newest, below the fence", rows(6, 5), newest, 7, newest, "lagging"},
		{"newest, empty below the fence", nil, newest, 1, newest, "lagging"},
		{"below 8, row 7 there", rows(7, 6, 5), 8, 0, newest, "whole"},
		{"below 8, row 7 known, missing", rows(5, 4), 8, 9, newest, "lagging"},
		{"below 8, row 7 at the fence, missing", rows(5, 4), 8, 7, newest, "lagging"},
		{"below 8, row 7 unknown, missing", rows(5, 4), 8, 5, newest, "unsure"},
		{"below 8, empty, nothing known", nil, 8, 0, newest, "unsure"},
		{"below 1: nothing can be below it", nil, 1, 9, newest, "whole"},
		{"below 2, row 1 there", rows(1), 2, 3, newest, "whole"},
		{"below 2, row 1 known, missing", nil, 2, 3, newest, "lagging"},
		{"below 8, row 7 there, a commit known above it replayed", rows(7, 6, 5), 8, 9, 9, "whole"},
		{"below 8, row 7 there, a commit known above it not replayed", rows(7, 6, 5), 8, 9, 8, "lagging"},
		{"below 8, row 7 there, the desk not on the standby", rows(7, 6, 5), 8, 9, 0, "lagging"},
	} {
		if got := pgstore.Judge(c.rows, c.bound, c.known, c.head); got != c.want {
			t.Errorf("%s: judge = %s, want %s", c.name, got, c.want)
		}
	}
}
