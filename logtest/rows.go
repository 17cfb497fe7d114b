package logtest

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sharedesk/transcript"
)

// deskStart is when the kit's first row was written: whole milliseconds in a zone that is
// not UTC, so a store that keeps times in UTC or at millisecond precision round-trips it
// (rows are compared with time.Equal).
var deskStart = time.Date(2025, 3, 14, 9, 26, 53, 589_000_000, time.FixedZone("UTC+2", 2*60*60))

// authors write the kit's rows: every kind, one label with non-ASCII text, one empty label.
var authors = []transcript.Author{
	transcript.Operator(),
	transcript.Person("ana", "Ana Lima"),
	transcript.Agent("triage", "Triage"),
	transcript.Agent("writer", "Writer ✍"),
	transcript.System("workflow", "Nightly build"),
	transcript.Person("bo", ""),
}

// filler appends the kit's rows to one desk: a deterministic mix of roots, first and later
// replies, replies to replies, blank rows, asides and every kind of author, with
// the parents taken from the rows Append returned.
type filler struct {
	desk    Desk
	rng     *rand.Rand
	rows    []transcript.Message // what Append returned, oldest first
	roots   []int                // indexes into rows
	replies []int
}

func newFiller(d Desk) *filler {
	return &filler{desk: d, rng: rand.New(rand.NewPCG(0x5eed, 0xde5c))}
}

// fill appends n rows to d and returns the stored rows, oldest first. On a failed Append, or
// an Append that did not return the stored form of its message, it reports to r and returns
// false.
func fill(ctx context.Context, d Desk, n int, r *report) ([]transcript.Message, bool) {
	f := newFiller(d)
	f.rows = make([]transcript.Message, 0, n)
	for range n {
		if _, err := f.append(ctx); err != nil {
			r.add(err)
			return nil, false
		}
	}
	return f.rows, true
}

// append appends the next row and returns what Append returned, after checking it: Seq
// above the previous row's, Parent, Author and Content as given.
func (f *filler) append(ctx context.Context) (transcript.Message, error) {
	m := f.draft()
	got, err := f.desk.Append(ctx, m)
	if err != nil {
		return transcript.Message{}, failf(kindAppend, "Append of row %d (%s): %w", len(f.rows)+1, describe(m), err)
	}
	var parent *transcript.Message
	if m.Parent != 0 {
		parent = &f.rows[f.index(m.Parent)]
	}
	audience, err := m.ResolveAudience(parent) // what the reply rule stores
	if err != nil {
		return transcript.Message{}, fmt.Errorf("logtest: row %d breaks the reply rule, a bug of the kit: %w", len(f.rows)+1, err)
	}
	var prev transcript.Sequence
	if len(f.rows) > 0 {
		prev = f.rows[len(f.rows)-1].Seq
	}
	switch {
	case got.Seq == 0 || got.Seq <= prev:
		return transcript.Message{}, failf(kindAppend, "Append of row %d: got seq %d, want a seq above %d (the previous row's; valid rows have seq >= 1)", len(f.rows)+1, got.Seq, prev)
	case got.Parent != m.Parent || got.Author != m.Author || got.Content != m.Content || !slices.Equal(got.Audience, audience):
		m.Audience = audience
		return transcript.Message{}, failf(kindAppend, "Append of row %d: got %s, want the stored form of %s", len(f.rows)+1, describe(got), describe(m))
	}
	if got.IsRoot() {
		f.roots = append(f.roots, len(f.rows))
	} else {
		f.replies = append(f.replies, len(f.rows))
	}
	f.rows = append(f.rows, got)
	return got, nil
}

// index returns the position in f.rows of the row seq, which Append returned.
func (f *filler) index(seq transcript.Sequence) int {
	i, _ := slices.BinarySearchFunc(f.rows, seq, func(m transcript.Message, seq transcript.Sequence) int { return cmp.Compare(m.Seq, seq) })
	return i
}

// draft returns the next message to append.
func (f *filler) draft() transcript.Message {
	m := f.draftRow()
	if m.Parent != 0 {
		if parent := f.rows[f.index(m.Parent)]; parent.IsAside() {
			// A reply to an aside, by one of its readers, with the audience left for the
			// reply rule to fill in.
			if !parent.ReadableBy(m.Author) {
				m.Author = parent.Author
			}
			return m
		}
	}
	if f.rng.IntN(6) == 0 { // an aside to one or two others
		for range 1 + f.rng.IntN(2) {
			if a := authors[f.rng.IntN(len(authors))]; !a.Same(m.Author) && !slices.ContainsFunc(m.Audience, a.Same) {
				m.Audience = append(m.Audience, a)
			}
		}
	}
	return m
}

// draftRow returns the next row's parent, author, content and time.
func (f *filler) draftRow() transcript.Message {
	i := len(f.rows)
	m := transcript.Message{
		Author:  authors[f.rng.IntN(len(authors))],
		Content: contentOf(i),
	}
	if i%11 != 0 { // At is optional: every 11th row has none
		m.At = deskStart.Add(time.Duration(i) * 1001 * time.Millisecond)
	}
	if len(f.roots) == 0 {
		return m
	}
	recent := func(idx []int) transcript.Sequence {
		return f.rows[idx[len(idx)-1-f.rng.IntN(min(len(idx), 4))]].Seq
	}
	switch r := f.rng.IntN(100); {
	case r < 25: // a root
	case r < 65: // a reply in a recent thread
		m.Parent = recent(f.roots)
	case r < 78: // a reply in any thread, deep ones included
		m.Parent = f.rows[f.roots[f.rng.IntN(len(f.roots))]].Seq
	case r < 81: // the desk's first thread stays alive
		m.Parent = f.rows[f.roots[0]].Seq
	case len(f.replies) > 0: // a reply to a reply
		m.Parent = recent(f.replies)
	}
	return m
}

// contents caches content for the rows of the kit's busiest desk, which every run of the
// kit appends again.
var contents = sync.OnceValue(func() []string {
	c := make([]string, 5000)
	for i := range c {
		c[i] = content(i)
	}
	return c
})

func contentOf(i int) string {
	if c := contents(); i < len(c) {
		return c[i]
	}
	return content(i)
}

// content returns the i-th row's content: mostly short text, some blank rows (empty, ASCII
// and Unicode white space), some multi-line and non-ASCII text, a few long rows.
func content(i int) string {
	switch {
	case i%13 == 5:
		return [...]string{"", "  \t\n", "\u00a0\u2003"}[i/13%3]
	case i%29 == 3:
		return fmt.Sprintf("row %d: héllo, wörld ✓\n  second line ", i)
	case i%97 == 7:
		return strings.Repeat(fmt.Sprintf("long row %d ", i), 200)
	}
	return fmt.Sprintf("row %d", i)
}

// describe renders m for a failure message, its content cut short.
func describe(m transcript.Message) string {
	c := m.Content
	if r := []rune(c); len(r) > 24 {
		c = string(r[:24]) + "…"
	}
	at := "none"
	if !m.At.IsZero() {
		at = m.At.Format(time.RFC3339Nano)
	}
	audience := ""
	if m.IsAside() {
		audience = fmt.Sprintf(", audience %v", m.Audience)
	}
	return fmt.Sprintf("{seq %d, parent %d, author %s %q%s, content %q, at %s}", m.Seq, m.Parent, m.Author, m.Author.Label, audience, c, at)
}

// sameRow reports whether got is the row want: every field equal, At compared with
// time.Equal since stores may keep times in another zone.
func sameRow(got, want transcript.Message) bool {
	return got.Seq == want.Seq && got.Parent == want.Parent && got.Author == want.Author &&
		got.Content == want.Content && got.At.Equal(want.At) && slices.Equal(got.Audience, want.Audience)
}
