package pgstore

import (
	"sync"
	"sync/atomic"
)

// fences are, for each desk, a number that only goes up, but for forget. A Store with standbys keeps the
// newest row of each desk it knows is committed: a row its own appends returned, a read of
// it showed, or its Watch learned of (the desk's head on the primary when a notification
// came). A read of the desk on a standby that shows no row that new is behind, and is not
// taken (route). Every Store counts its desks' changes in another (Store.changes). One
// entry a desk, dropped only when the desk is deleted (DeleteDesk): a desk's rows go only
// with it.
type fences struct {
	m sync.Map // desk name → *atomic.Int64
	// deleted holds, for each desk this Store deleted, where the primary's WAL stood once
	// the deletion committed (deletedAt): a standby that has not replayed that far still
	// shows the deleted desk, whose rows a read must never take.
	deleted sync.Map // desk name → *atomic.Int64
}

// deletedAt notes that desk's deletion committed by lsn, the primary's WAL position; of
// two deletions, the later position stands.
func (f *fences) deletedAt(desk string, lsn int64) {
	v, _ := f.deleted.LoadOrStore(desk, new(atomic.Int64))
	p := v.(*atomic.Int64)
	for cur := p.Load(); cur < lsn && !p.CompareAndSwap(cur, lsn); cur = p.Load() {
	}
}

// deletion returns where the primary's WAL stood once this Store's last deletion of desk
// committed, and false when it deleted none.
func (f *fences) deletion(desk string) (int64, bool) {
	v, ok := f.deleted.Load(desk)
	if !ok {
		return 0, false
	}
	return v.(*atomic.Int64).Load(), true
}

// get returns desk's fence: the Seq of the newest row the store knows, 0 for none.
func (f *fences) get(desk string) int64 {
	if v, ok := f.m.Load(desk); ok {
		return v.(*atomic.Int64).Load()
	}
	return 0
}

// bump moves desk's value up, to one more than it was when bump read it: concurrent bumps
// may move it up once for all of them, but each leaves it above what any read of it before
// the bump returned. A Store's changes are counted so (Store.changes).
func (f *fences) bump(desk string) { f.raise(desk, f.get(desk)+1) }

// raise moves desk's fence up to seq, if it is below.
func (f *fences) raise(desk string, seq int64) {
	if seq <= 0 {
		return
	}
	v, ok := f.m.Load(desk)
	if !ok {
		v, _ = f.m.LoadOrStore(desk, new(atomic.Int64))
	}
	p := v.(*atomic.Int64)
	for {
		cur := p.Load()
		if cur >= seq || p.CompareAndSwap(cur, seq) {
			return
		}
	}
}
