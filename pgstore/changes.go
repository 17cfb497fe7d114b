package pgstore

import (
	"sync"
	"sync/atomic"
)

// changes count, for each desk, the commits a Store knows may have changed rows already
// read: its own appends that hold a correction, and every commit its Watch hears of. A
// Log's rows read ahead are taken only while their desk's count is the one they were read
// under, so that a read after a correction's commit, which the Store returned or its Watch
// named, never answers with a row as it was before. One entry a desk, never dropped.
type changes struct{ m sync.Map } // desk name → *atomic.Uint64

// get returns desk's count.
func (c *changes) get(desk string) uint64 {
	if v, ok := c.m.Load(desk); ok {
		return v.(*atomic.Uint64).Load()
	}
	return 0
}

// bump counts one more change of desk.
func (c *changes) bump(desk string) {
	v, ok := c.m.Load(desk)
	if !ok {
		v, _ = c.m.LoadOrStore(desk, new(atomic.Uint64))
	}
	v.(*atomic.Uint64).Add(1)
}
