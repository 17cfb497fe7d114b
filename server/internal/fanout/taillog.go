package fanout

import (
	"context"
	"errors"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// errTailLimit is ReadBefore's error for a limit below 1.
var errTailLimit = errors.New("server: limit must be at least 1")

// tailLog is a tail's transcript.Log: the desk's log as of the tail's head. A read whose
// rows the tail holds is answered from memory; one below them goes to the store. Rows
// committed after the tail's last refresh appear once it refreshes: the log a reader sees
// is the log as it was at some moment, never a different history, since sequences follow
// commit order and a row changes only by a correction, which the tail applies to the rows
// it holds when it reads the correction (at once for one this server appends): never
// serving content a correction replaced or erased once it has read the correction.
type tailLog struct{ t *Tail }

var _ transcript.Log = tailLog{}

// Log returns the tail's Log.
func (t *Tail) Log() transcript.Log { return tailLog{t} }

// ReadBefore returns up to limit rows with Seq < before, newest first, from the rows the
// tail holds when they cover the range (before == 0, or any bound above the head, reads
// from the head); a page that reaches the oldest row held without reaching the log's start
// ends there, with Next set to it, and the next read goes to the store. A read wholly below
// the rows held is the store's. Pages are new: the caller owns them, audiences included.
func (l tailLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	if limit < 1 {
		return transcript.Page{}, errTailLimit
	}
	t := l.t
	t.mu.RLock()
	rows, patches, start, ended := t.rows, t.patches, t.start, t.ended
	t.mu.RUnlock() // neither is written in place: refresh and trim replace rows or append past its length, a correction replaces patches
	if ended {
		return transcript.Page{}, ErrTailEnded // the store's rows are another desk's now
	}

	i := len(rows) // rows[:i] are below before
	if before != 0 {
		i, _ = findSeq(rows, before)
	}
	if i == 0 {
		if start {
			return transcript.Page{}, nil // nothing below before: the tail holds the log from its start
		}
		t.metrics.TailFallback.Add(1)
		return t.src.ReadBefore(ctx, before, limit)
	}
	k := min(limit, i)
	page := transcript.Page{Messages: copyDescending(rows[i-k:i], patches)}
	if i-k > 0 || !start {
		page.Next = rows[i-k].Seq
	}
	return page, nil
}

// copyDescending returns rows, ascending, as a new page, newest first, with new audiences,
// all of them in one array, and the patches of rows among them written in.
func copyDescending(rows []transcript.Message, patches []storage.Revision) []transcript.Message {
	out := make([]transcript.Message, len(rows))
	n := 0
	for _, m := range rows {
		n += len(m.Audience)
	}
	var audiences []transcript.Author
	if n > 0 {
		audiences = make([]transcript.Author, 0, n)
	}
	for i, m := range rows {
		if len(m.Audience) > 0 {
			start := len(audiences)
			audiences = append(audiences, m.Audience...)
			m.Audience = audiences[start:len(audiences):len(audiences)]
		}
		out[len(rows)-1-i] = m
	}
	if len(rows) > 0 && len(patches) > 0 {
		lo, _ := findPatch(patches, rows[0].Seq)
		hi, _ := findPatch(patches, rows[len(rows)-1].Seq+1)
		for _, r := range patches[lo:hi] {
			if j, ok := findSeq(rows, r.Target); ok {
				revise(&out[len(rows)-1-j], r)
			}
		}
	}
	return out
}
