package memdesks

import (
	"context"
	"sync"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// Desks is a set of memlog desks by name, each made empty on its first use: the reference
// log, which applies corrections and keeps digests as every store must. The zero Desks holds
// none and is ready to use; a Desks is safe for concurrent use.
type Desks struct {
	mu    sync.Mutex
	desks map[string]*memlog.Log
}

// Desk returns the desk named name, making it when there is none.
func (d *Desks) Desk(name string) *memlog.Log {
	d.mu.Lock()
	defer d.mu.Unlock()
	l := d.desks[name]
	if l == nil {
		if d.desks == nil {
			d.desks = make(map[string]*memlog.Log)
		}
		l = memlog.New()
		d.desks[name] = l
	}
	return l
}

// Log returns the desk named desk (Desk).
func (d *Desks) Log(desk string) transcript.Log { return d.Desk(desk) }

// Append appends m to the desk named desk, as memlog.Log.Append does.
func (d *Desks) Append(ctx context.Context, desk string, m transcript.Message) (transcript.Message, error) {
	return d.Desk(desk).Append(ctx, m)
}

// AppendNew appends m to the desk named desk, as memlog.Log.AppendNew does.
func (d *Desks) AppendNew(ctx context.Context, desk string, m transcript.Message) (transcript.Message, bool, error) {
	return d.Desk(desk).AppendNew(ctx, m)
}
