package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
)

// checkStoredRow: Append returns the stored row and the row reads back identically. At is
// kept to the microsecond, from the Unix epoch to the year 9999.
func checkStoredRow(t *testing.T, st Store) {
	const desk = "rows"
	zone := time.FixedZone("UTC-3", -3*60*60)
	given := time.Date(2024, 2, 29, 23, 59, 58, 123_456_789, zone)
	msgs := []transcript.Message{
		{Author: transcript.Operator(), Content: "stamped by the store"},
		{Parent: 1, Author: transcript.Person("ana", "Ana Lima"), Content: "kept to the microsecond", At: given},
		{Parent: 2, Author: transcript.Agent("writer", "Writer ✍"), Content: "  \n\t"},
		{Author: transcript.System("workflow", ""), Content: "naïve café — 日本語 🚀", At: time.Unix(0, 0)},
		{Parent: 1, Author: transcript.Person("bo", "Bo"), Content: "<reply to=\"1\">\n'quotes' and %s %d ?1 $1"},
		{Author: transcript.Agent("x", "far future"), Content: "year 9999", At: time.Date(9999, 12, 31, 23, 59, 59, 999_999_000, time.UTC)},
	}
	var stored []transcript.Message
	for i, m := range msgs {
		before := time.Now().Truncate(time.Microsecond)
		got := mustAppend(t, st, desk, m, transcript.Sequence(i+1))
		after := time.Now()
		want := m
		want.Seq = got.Seq
		switch {
		case m.At.IsZero():
			if got.At.Before(before) || got.At.After(after) {
				t.Errorf("row %d: At = %v, want the time of the append, in [%v, %v]", got.Seq, got.At, before, after)
			}
			want.At = got.At
		case got.At.Sub(m.At).Abs() >= time.Microsecond:
			t.Errorf("row %d: At = %v, want %v to the microsecond", got.Seq, got.At, m.At)
		default:
			want.At = got.At
		}
		if got.At.Location() != time.UTC {
			t.Errorf("row %d: At in %v, want UTC", got.Seq, got.At.Location())
		}
		checkRows(t, "the row Append returned", []transcript.Message{got}, []transcript.Message{want})
		stored = append(stored, got)
	}
	rows := mustReadAll(t, st, desk)
	checkRows(t, "the rows read back", rows, stored)
	for _, m := range rows {
		if m.At.Location() != time.UTC {
			t.Errorf("row %d read back with At in %v, want UTC", m.Seq, m.At.Location())
		}
	}
	// Reads with every bound and a few limits agree with the rows read in one go.
	log := st.Log(desk)
	for before := transcript.Sequence(0); before <= transcript.Sequence(len(rows)+1); before++ {
		for _, limit := range []int{1, 2, len(rows) + 5} {
			page, err := log.ReadBefore(t.Context(), before, limit)
			if err != nil {
				t.Fatalf("ReadBefore(%d, %d): %v", before, limit, err)
			}
			end := len(rows)
			if before != 0 {
				end = min(int(before)-1, len(rows))
			}
			start := max(0, end-limit)
			want := slices.Clone(rows[start:end])
			slices.Reverse(want)
			checkRows(t, "ReadBefore", page.Messages, want)
			switch {
			case start == 0 && page.Next != 0:
				t.Errorf("ReadBefore(%d, %d): Next = %d, want 0: no older row exists", before, limit, page.Next)
			case start > 0 && (page.Next <= rows[start-1].Seq || page.Next > rows[start].Seq):
				t.Errorf("ReadBefore(%d, %d): Next = %d, want one in (%d, %d]", before, limit, page.Next, rows[start-1].Seq, rows[start].Seq)
			}
		}
	}
}
