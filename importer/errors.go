package importer

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// RowError is what is wrong with one message of an import, named by where it is in its
// source: "line 12", or `"general/2024-05-01.json": message 1714550400.000100`. It never
// quotes content.
type RowError struct {
	Where string
	Err   error // what is wrong; a store's refusal matches transcript.ErrInvalidMessage or transcript.ErrKeyConflict
}

func (e *RowError) Error() string { return e.Where + ": " + e.Err.Error() }

// Unwrap returns what is wrong.
func (e *RowError) Unwrap() error { return e.Err }

// RowsError reports the bad messages of an import, of which nothing was written: the first
// ten in the source's order, each named by where it is, and how many there were in all.
type RowsError struct {
	Problems []Problem // the first, in the source's order
	N        int       // how many problems in all
	text     string
}

// Problem is one thing wrong with a message of an import.
type Problem struct {
	Where  string // as RowError's
	Reason string
}

func (e *RowsError) Error() string { return e.text }

// problems collects what is wrong with an import's lines or messages, each named by where
// it is, and reports the first maxReported of them in order, and how many more there were,
// in one error.
type problems struct {
	listed []problem // the first in order, at most maxReported, ascending
	n      int
}

// problem is one thing wrong, and its place in the order problems lists them in.
type problem struct {
	order int
	Problem
}

// add notes what is wrong at where; order (a line number, a row's index, a message's
// position in an export) places it among the others, which may be added in any order.
func (p *problems) add(order int, where, format string, args ...any) {
	p.n++
	if len(p.listed) == maxReported && order >= p.listed[len(p.listed)-1].order {
		return
	}
	i, _ := slices.BinarySearchFunc(p.listed, order, func(e problem, order int) int { return cmp.Compare(e.order, order+1) })
	p.listed = slices.Insert(p.listed, i, problem{order, Problem{where, fmt.Sprintf(format, args...)}})
	if len(p.listed) > maxReported {
		p.listed = p.listed[:maxReported]
	}
}

// lines returns the problems listed, each as "where: reason".
func (p *problems) lines() ([]Problem, []string) {
	listed := make([]Problem, len(p.listed))
	list := make([]string, len(p.listed), len(p.listed)+1)
	for i, pr := range p.listed {
		listed[i] = pr.Problem
		list[i] = pr.Where + ": " + pr.Reason
	}
	return listed, list
}

// err returns nil when nothing was added, else the *RowsError listing it, each thing
// counted as a noun ("line", "message").
func (p *problems) err(noun string) error {
	if p.n == 0 {
		return nil
	}
	listed, list := p.lines()
	if more := p.n - len(list); more > 0 {
		list = append(list, "and "+plural(more, "more bad "+noun))
	}
	text := fmt.Sprintf("%s, nothing was imported:\n  %s", plural(p.n, "bad "+noun), strings.Join(list, "\n  "))
	return &RowsError{Problems: listed, N: p.n, text: text}
}

// exportErr is err for a chat export's messages, which a reader reports before the desk is
// consulted: one problem alone, or a count and the list.
func (p *problems) exportErr() error {
	if p.n == 0 {
		return nil
	}
	listed, list := p.lines()
	if p.n == 1 {
		return &RowsError{Problems: listed, N: 1, text: list[0]}
	}
	if p.n > len(list) {
		list = append(list, fmt.Sprintf("and %d more bad messages", p.n-len(list)))
	}
	text := fmt.Sprintf("%d bad messages:\n  %s", p.n, strings.Join(list, "\n  "))
	return &RowsError{Problems: listed, N: p.n, text: text}
}
