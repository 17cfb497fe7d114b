package logtest

import (
	"context"
	"slices"
	"sync"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// readFunc is memlog with its reads made by read, which gets the memlog to read from.
type readFunc struct {
	*memlog.Log
	read func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error)
}

func (r readFunc) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	return r.read(ctx, r.Log, before, limit)
}

// readWith returns a constructor of memlogs whose reads are made by read.
func readWith(read func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error)) func() Desk {
	return func() Desk { return readFunc{memlog.New(), read} }
}

// fixPages returns a constructor of memlogs whose pages pass through fix. memlog returns a
// new slice on every read, so fix may change its rows.
func fixPages(fix func(pg *transcript.Page, before transcript.Sequence, limit int)) func() Desk {
	return readWith(func(ctx context.Context, l Desk, before transcript.Sequence, limit int) (transcript.Page, error) {
		pg, err := l.ReadBefore(ctx, before, limit)
		if err == nil {
			fix(&pg, before, limit)
		}
		return pg, err
	})
}

// fixRows returns a constructor of memlogs whose non-empty pages' rows pass through fix.
func fixRows(fix func(rows []transcript.Message)) func() Desk {
	return fixPages(func(pg *transcript.Page, _ transcript.Sequence, _ int) {
		if len(pg.Messages) > 0 {
			fix(pg.Messages)
		}
	})
}

// sharingLog keeps a newest-first copy of memlog's rows, rebuilt in a new array after
// appends, and hands out slices of it.
type sharingLog struct {
	memlog.Log
	mu   sync.Mutex
	desc []transcript.Message
}

func (s *sharingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if err := ctx.Err(); err != nil {
		return transcript.Page{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Log.Len() != len(s.desc) {
		s.desc = newestFirst(s.Log.Messages())
	}
	rows := below(s.desc, before)
	n := min(limit, len(rows))
	pg := transcript.Page{Messages: rows[:n]}
	if n < len(rows) {
		pg.Next = rows[n-1].Seq
	}
	return pg, nil
}

// audienceSharingLog copies its rows into every page, but not their audiences: every page
// shares the audience arrays of the rows it keeps.
type audienceSharingLog struct {
	memlog.Log
	mu   sync.Mutex
	desc []transcript.Message
}

func (s *audienceSharingLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	s.mu.Lock()
	if s.Log.Len() != len(s.desc) {
		s.desc = newestFirst(s.Log.Messages())
	}
	rows := below(s.desc, before)
	s.mu.Unlock()
	n := min(limit, len(rows))
	pg := transcript.Page{Messages: slices.Clone(rows[:n])} // a shallow copy: audiences shared
	if n < len(rows) {
		pg.Next = rows[n-1].Seq
	}
	return pg, ctx.Err()
}

// publicAppend stores every message as a desk row, whatever its audience.
type publicAppend struct{ *memlog.Log }

func (p publicAppend) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	m.Audience = nil
	return p.Log.Append(ctx, m)
}

// bufferLog copies every page into one buffer it reuses.
type bufferLog struct {
	memlog.Log
	mu  sync.Mutex
	buf []transcript.Message
}

func (b *bufferLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	pg, err := b.Log.ReadBefore(ctx, before, limit)
	if err != nil {
		return pg, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf[:0], pg.Messages...)
	pg.Messages = b.buf
	return pg, nil
}

// frozenLog reads from a copy of memlog taken at its first read.
type frozenLog struct {
	memlog.Log
	once   sync.Once
	frozen *memlog.Log
}

func (f *frozenLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	f.once.Do(func() {
		frozen, err := memlog.From(f.Log.Messages())
		if err != nil {
			frozen = memlog.New()
		}
		f.frozen = frozen
	})
	return f.frozen.ReadBefore(ctx, before, limit)
}

// seqlessAppend returns the message it was given from Append, not the stored row.
type seqlessAppend struct{ *memlog.Log }

func (s seqlessAppend) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	_, err := s.Log.Append(ctx, m)
	return m, err
}

// gappedLog numbers memlog's rows by tens, and sets each cursor halfway between the page's
// oldest row and the next older one: a conforming log that memlog is not.
type gappedLog struct{ log *memlog.Log }

const gap = 10

func (g gappedLog) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	m.Parent /= gap
	got, err := g.log.Append(ctx, m)
	got.Seq *= gap
	got.Parent *= gap
	return got, err
}

func (g gappedLog) ReadBefore(ctx context.Context, before transcript.Sequence, limit int) (transcript.Page, error) {
	if before != 0 {
		before = (before-1)/gap + 1 // the lowest memlog seq whose row lies at or above before
	}
	pg, err := g.log.ReadBefore(ctx, before, limit)
	for i := range pg.Messages {
		pg.Messages[i].Seq *= gap
		pg.Messages[i].Parent *= gap
	}
	if pg.Next != 0 {
		pg.Next = pg.Next*gap - gap/2
	}
	return pg, err
}

var (
	_ Desk = readFunc{}
	_ Desk = (*sharingLog)(nil)
	_ Desk = (*bufferLog)(nil)
	_ Desk = (*frozenLog)(nil)
	_ Desk = seqlessAppend{}
	_ Desk = (*audienceSharingLog)(nil)
	_ Desk = publicAppend{}
	_ Desk = gappedLog{}
)
