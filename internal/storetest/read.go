package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/sharedesk/transcript"
)

// readAll returns every row of desk, oldest first, read through a transcript.Pager so that
// every page is checked against the port contract.
func readAll(ctx context.Context, st Store, desk string) ([]transcript.Message, error) {
	rows, err := ReadLog(ctx, st.Log(desk))
	if err != nil {
		return nil, fmt.Errorf("reading desk %q: %w", desk, err)
	}
	return rows, nil
}

// ReadLog returns every row of log, oldest first, through a transcript.Pager.
func ReadLog(ctx context.Context, log transcript.Log) ([]transcript.Message, error) {
	p := transcript.NewPager(log, 0)
	var rows []transcript.Message
	for !p.Done() {
		page, err := p.Next(ctx, transcript.PageSize)
		if err != nil {
			return nil, err
		}
		if len(page) == 0 {
			break
		}
		rows = append(rows, page...)
	}
	slices.Reverse(rows)
	return rows, nil
}

// mustReadAll is readAll for the test's own goroutine.
func mustReadAll(t *testing.T, st Store, desk string) []transcript.Message {
	t.Helper()
	rows, err := readAll(t.Context(), st, desk)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// head returns the Seq of desk's newest row, 0 for an empty desk.
func head(t *testing.T, st Store, desk string) transcript.Sequence {
	t.Helper()
	page, err := st.Log(desk).ReadBefore(t.Context(), 0, 1)
	if err != nil {
		t.Fatalf("ReadBefore(0, 1) on desk %q: %v", desk, err)
	}
	if len(page.Messages) == 0 {
		return 0
	}
	return page.Messages[0].Seq
}

// mustAppend appends m to desk and checks that it got Seq want.
func mustAppend(t *testing.T, st Store, desk string, m transcript.Message, want transcript.Sequence) transcript.Message {
	t.Helper()
	got, err := st.Append(t.Context(), desk, m)
	if err != nil {
		t.Fatalf("Append to desk %q of %+v: %v", desk, m, err)
	}
	if got.Seq != want {
		t.Fatalf("Append to desk %q: got seq %d, want %d", desk, got.Seq, want)
	}
	return got
}

// mustDesks returns st.Desks.
func mustDesks(t *testing.T, st Store) []string {
	t.Helper()
	desks, err := st.Desks(t.Context())
	if err != nil {
		t.Fatalf("Desks: %v", err)
	}
	return desks
}

// checkRows reports a difference between the rows read and the rows wanted; times are
// compared with time.Equal.
func checkRows(t *testing.T, what string, got, want []transcript.Message) {
	t.Helper()
	if diff := cmp.Diff(want, got, timeEqual); diff != "" {
		t.Errorf("%s: rows differ (-want +got):\n%s", what, diff)
	}
}

var timeEqual = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

// root returns a root written by the operator.
func root(content string) transcript.Message {
	return transcript.Message{Author: transcript.Operator(), Content: content}
}

// reply returns a reply to parent written by an agent.
func reply(parent transcript.Sequence, content string) transcript.Message {
	return transcript.Message{Parent: parent, Author: transcript.Agent("triage", "Triage"), Content: content}
}
