// Package memlog is an in-memory transcript.Log for one desk: the reference implementation
// of the port, and the store used by tests, examples and the demo.
//
// Reads copy, audiences included, so callers can neither corrupt the log nor see it change
// under them.
package memlog

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// deskName is the desk a Log settles its appends as: a Log is one desk, and names none.
const deskName = "log"

// Log is one desk's transcript held in memory, with its conversations' digests (a
// digest.Store). The zero Log is an empty log ready to use. It is safe for concurrent use by
// multiple goroutines.
type Log struct {
	mu   sync.RWMutex
	rows []transcript.Message // ascending Seq
	keys map[string]int       // Key → index in rows, for the rows Append stored with a key
	// digests holds each conversation's digests by thread (0: the channel), ascending
	// Generation and Through.
	digests    map[transcript.Sequence][]transcript.Digest
	digestDesk string // the Desk of the first digest stored: the desk of every one
	digestLog  int64  // the log's number in a storage.DigestRead, 0 until it needs one
}

var _ transcript.Log = (*Log)(nil)

// ErrLimit is returned by ReadBefore for a limit below 1.
var ErrLimit = errors.New("memlog: limit must be at least 1")

// New returns an empty log.
func New() *Log { return new(Log) }

// From returns a log holding rows, which must be in strictly ascending Seq (gaps are
// allowed), each valid as a page row (Seq >= 1, a valid author, Parent < Seq). Parents need
// not exist and audiences are taken as given, unchecked: a host's log may hold such rows,
// and the walk must cope. Keys must be unique, as in any desk. From copies rows, audiences
// included.
func From(rows []transcript.Message) (*Log, error) {
	for i, m := range rows {
		switch {
		case m.Seq == 0 || (i > 0 && m.Seq <= rows[i-1].Seq):
			return nil, fmt.Errorf("memlog: row %d: seq %d not above the previous row", i, m.Seq)
		case m.Parent >= m.Seq:
			return nil, fmt.Errorf("memlog: row %d: parent %d not older than seq %d", i, m.Parent, m.Seq)
		}
		if err := m.Author.Validate(); err != nil {
			return nil, fmt.Errorf("memlog: row %d: %w", i, err)
		}
	}
	l := &Log{rows: copyRows(rows)}
	for i, m := range rows {
		if m.Key == "" {
			continue
		}
		if j, ok := l.keys[m.Key]; ok {
			return nil, fmt.Errorf("memlog: row %d: key %q is row %d's too", i, m.Key, j)
		}
		if l.keys == nil {
			l.keys = make(map[string]int)
		}
		l.keys[m.Key] = i
	}
	return l, nil
}

// Append stores m as the newest row and returns it with its assigned Seq: one above the
// newest row (1 for the first), and its Audience as the reply rule or the correction rule
// gives it. m must satisfy transcript.Message.ValidateNew, its Parent, when not 0, must be
// a row of this log, and the reply rule must hold (a reply to an aside keeps the aside's
// readers; no one replies to a row they may not read). A correction (m.Corrects != 0) must
// satisfy transcript.Message.ResolveCorrection, and is applied to its target at once: the
// target's content becomes the edit's, or is erased with that of every earlier correction
// of it, and its Revised becomes m's Seq, and every digest of the target's channel, and of
// its thread when it is a reply, whose Through is at or above it is deleted (see
// digest.Store). A Key the log holds already stores nothing: Append returns the stored row
// when storage.MatchKey finds m the same message, and its *transcript.KeyConflictError
// otherwise. storage.Batch.Settle decides all of it. On error nothing is stored. Append
// honours ctx.
func (l *Log) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	stored, _, err := l.AppendNew(ctx, m)
	return stored, err
}

// AppendNew is Append that also says whether it stored a new row: false when m's Key named
// a stored row that is the same message (a replay), which it returns.
func (l *Log) AppendNew(ctx context.Context, m transcript.Message) (transcript.Message, bool, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Message{}, false, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := storage.Batch{Desk: deskName, Messages: []transcript.Message{m}, Single: true}
	var stored map[transcript.Sequence]transcript.Message
	for _, seq := range [...]transcript.Sequence{m.Parent, m.Corrects} {
		if i, found := l.find(seq); seq != 0 && found {
			stored = map[transcript.Sequence]transcript.Message{seq: l.rows[i]}
		}
	}
	var present map[string]*transcript.Message
	if i, ok := l.keys[m.Key]; ok && m.Key != "" {
		present = map[string]*transcript.Message{m.Key: &l.rows[i]}
	}
	settled, err := b.Settle(l.head(), stored, present)
	if err != nil { // a *transcript.AppendError, whose desk and index say nothing here
		return transcript.Message{}, false, errors.Unwrap(err)
	}
	if len(settled.Added) == 0 {
		return copyRows(settled.Rows)[0], false, nil
	}
	m = settled.Added[0]
	for _, r := range settled.Revisions {
		l.revise(r)
	}
	if m.Key != "" {
		if l.keys == nil {
			l.keys = make(map[string]int)
		}
		l.keys[m.Key] = len(l.rows)
	}
	l.rows = append(l.rows, m)
	return copyRows(settled.Added)[0], true, nil
}

// revise writes r to the row it revises: its content and Revised, and for a redaction the
// erasure of every correction of it; it deletes the digests that may hold the row's words
// (none for an aside).
func (l *Log) revise(r storage.Revision) {
	i, _ := l.find(r.Target)
	r.Apply(&l.rows[i])
	l.dropDigests(l.rows[i])
	for k := i + 1; r.Redacted && k < len(l.rows); k++ { // its corrections, all newer
		r.Apply(&l.rows[k])
	}
}

// ReadBefore implements transcript.Log: up to limit rows with Seq < before (before == 0:
// from the newest), newest first, in a new slice. Next is the Seq of the page's oldest row
// when older rows exist, else 0.
func (l *Log) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	if limit < 1 {
		return transcript.Page{}, ErrLimit
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	end := len(l.rows)
	if before != 0 {
		end, _ = l.find(before)
	}
	start := max(0, end-limit)
	page := transcript.Page{Messages: make([]transcript.Message, end-start)}
	asides := false
	for i, m := range l.rows[start:end] {
		page.Messages[end-start-1-i] = m
		asides = asides || len(m.Audience) > 0
	}
	if asides {
		detachAudiences(page.Messages)
	}
	if start > 0 {
		page.Next = l.rows[start].Seq
	}
	return page, nil
}

// Head returns the Seq of the newest row, 0 when the log is empty.
func (l *Log) Head() transcript.Sequence {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.head()
}

// Len returns the number of rows.
func (l *Log) Len() int {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return len(l.rows)
}

// Messages returns a copy of every row, oldest first.
func (l *Log) Messages() []transcript.Message {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return copyRows(l.rows)
}

// copyRows returns a copy of rows, audiences included.
func copyRows(rows []transcript.Message) []transcript.Message {
	out := slices.Clone(rows)
	detachAudiences(out)
	return out
}

// detachAudiences gives the audiences of out, copied rows, one new array of their own, so
// that a page costs two allocations however many asides it holds.
func detachAudiences(out []transcript.Message) {
	n := 0
	for _, m := range out {
		n += len(m.Audience)
	}
	if n == 0 {
		return
	}
	audiences := make([]transcript.Author, 0, n)
	for i := range out {
		if a := out[i].Audience; len(a) > 0 {
			start := len(audiences)
			audiences = append(audiences, a...)
			out[i].Audience = audiences[start:len(audiences):len(audiences)]
		}
	}
}

func (l *Log) head() transcript.Sequence {
	if len(l.rows) == 0 {
		return 0
	}
	return l.rows[len(l.rows)-1].Seq
}

// find returns the index of the first row with Seq >= seq and whether that row is seq.
func (l *Log) find(seq transcript.Sequence) (int, bool) {
	return slices.BinarySearchFunc(l.rows, seq, func(m transcript.Message, seq transcript.Sequence) int {
		return cmp.Compare(m.Seq, seq)
	})
}

var _ transcript.Searcher = (*Log)(nil)

// Search implements transcript.Searcher by brute force: it reads every row below the
// query's bound, newest first, and keeps those storage.SearchPlan.Matches accepts. It is
// the model the stores' indexed searches equal.
func (l *Log) Search(ctx context.Context, q transcript.SearchQuery) (transcript.SearchResult, error) {
	if err := ctx.Err(); err != nil {
		return transcript.SearchResult{}, err
	}
	p, err := storage.PlanSearch(q)
	if err != nil {
		return transcript.SearchResult{}, err
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	end := len(l.rows)
	if p.Before != 0 {
		end, _ = l.find(p.Before)
	}
	var hits []transcript.Message
	for i := end - 1; i >= 0 && len(hits) <= p.Limit; i-- {
		if p.Matches(&l.rows[i]) {
			hits = append(hits, l.rows[i])
		}
	}
	detachAudiences(hits)
	return p.Result(hits), nil
}
