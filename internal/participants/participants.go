// Package participants gathers the participants a desk names: the authors and audiences of
// its rows and the participants of its tokens, each identity once. The command's note of a
// participant the desk has not seen and the service's participant list read it.
package participants

import (
	"cmp"
	"context"
	"maps"
	"slices"

	"github.com/sharedesk/transcript"
)

// Set holds each identity (kind and id, as transcript.Author.Same compares them) once, with
// the first non-empty label it was given: rows read newest first give the newest label. The
// zero Set is not usable; make one with make or a literal. A Set is not safe for concurrent
// use.
type Set map[key]transcript.Author

type key struct {
	kind transcript.AuthorKind
	id   string
}

// Add adds a, or gives the identity a's label when it has none yet.
func (s Set) Add(a transcript.Author) {
	k := key{a.Kind, a.ID}
	if had, ok := s[k]; !ok || had.Label == "" {
		s[k] = a
	}
}

// Has reports whether s holds a's identity, whatever its label.
func (s Set) Has(a transcript.Author) bool {
	_, ok := s[key{a.Kind, a.ID}]
	return ok
}

// Sorted returns s's participants by kind, then id: an empty slice, never nil, for none.
// The slice is new, and the caller's.
func (s Set) Sorted() []transcript.Author {
	out := slices.AppendSeq(make([]transcript.Author, 0, len(s)), maps.Values(s))
	slices.SortFunc(out, func(a, b transcript.Author) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// Scan adds to s the author and the audience of each of log's rows, newest first, page by
// page, until it has read max rows or the log holds no older row, or, when stop is not nil,
// stop reports true (asked before the first read and after each page). It walks the log in
// walks of at most transcript.ScanLimit rows, as every walk of a log is bounded. It returns
// how many rows it read and whether they are all the log holds; on an error, what it added
// so far stays in s.
func (s Set) Scan(ctx context.Context, log transcript.Log, max int, stop func() bool) (read int, all bool, err error) {
	stopped := func() bool { return stop != nil && stop() }
	var before transcript.Sequence // where the next walk starts: below the oldest row read
	for !all && read < max && !stopped() {
		pager := transcript.NewPager(log, before)
		for walked := 0; walked < transcript.ScanLimit && read < max && !pager.Done() && !stopped(); {
			page, err := pager.Next(ctx, min(transcript.PageSize, max-read, transcript.ScanLimit-walked))
			if err != nil {
				return read, false, err
			}
			for _, m := range page {
				s.Add(m.Author)
				for _, a := range m.Audience {
					s.Add(a)
				}
				before = m.Seq
			}
			walked += len(page)
			read += len(page)
		}
		all = pager.Done()
	}
	return read, all, nil
}

// Absence is what a desk has seen in place of a participant it has not (Unseen).
type Absence struct {
	Kin  []transcript.Author // the desk's participants of the participant's kind, by id
	Read int                 // how many of the desk's rows were read, newest first
	All  bool                // whether they are all the desk holds
}

// Unseen reports, with ok = true, that p is a participant the desk has not seen: not among
// known (its tokens' participants, say) nor the author or a reader of an aside among log's
// newest max rows, which it reads newest first until p is among them, so that a
// participant the desk knows costs a page or so. The operator is always seen. ok is false
// on an error: what was read is not enough to tell.
func Unseen(ctx context.Context, log transcript.Log, known []transcript.Author, p transcript.Author, max int) (a Absence, ok bool, err error) {
	if p.Kind == transcript.KindOperator {
		return Absence{}, false, nil
	}
	seen := Set{}
	for _, k := range known {
		seen.Add(k)
	}
	a.Read, a.All, err = seen.Scan(ctx, log, max, func() bool { return seen.Has(p) })
	if err != nil || seen.Has(p) {
		return Absence{}, false, err
	}
	for _, s := range seen.Sorted() {
		if s.Kind == p.Kind {
			a.Kin = append(a.Kin, s)
		}
	}
	return a, true, nil
}
