package pgstore_test

import (
	"math"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/pgstore"
)

// TestJudge pins the rule by which a Store takes a standby's answer: a read from the newest
// needs the newest row the Store knows of; a read below a bound needs the row just below
// it, and waits for it only when the Store knows that row is committed.
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
		want         string
	}{
		{"newest, nothing known, empty answer", nil, newest, 0, "whole"},
		{"newest, at the fence", rows(7, 6), newest, 7, "whole"},
		{"newest, past the fence", rows(9, 8), newest, 7, "whole"},
		{"newest, below the fence", rows(6, 5), newest, 7, "lagging"},
		{"newest, empty below the fence", nil, newest, 1, "lagging"},
		{"below 8, row 7 there", rows(7, 6, 5), 8, 0, "whole"},
		{"below 8, row 7 known, missing", rows(5, 4), 8, 9, "lagging"},
		{"below 8, row 7 at the fence, missing", rows(5, 4), 8, 7, "lagging"},
		{"below 8, row 7 unknown, missing", rows(5, 4), 8, 5, "unsure"},
		{"below 8, empty, nothing known", nil, 8, 0, "unsure"},
		{"below 1: nothing can be below it", nil, 1, 9, "whole"},
		{"below 2, row 1 there", rows(1), 2, 3, "whole"},
		{"below 2, row 1 known, missing", nil, 2, 3, "lagging"},
	} {
		if got := pgstore.Judge(c.rows, c.bound, c.known); got != c.want {
			t.Errorf("%s: judge = %s, want %s", c.name, got, c.want)
		}
	}
}
