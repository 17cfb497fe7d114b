package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"sync"
)

// internCacheLimit bounds each of a Store's intern caches. A desk has a few dozen authors
// and a handful of distinct reader sets; in a file with more (a label per message, say),
// a cache starts afresh whenever it is full, so it holds the values of recent reads and
// appends, and the others cost a lookup in their table.
const internCacheLimit = 4096

// internCache maps the ids of a table of interned values (the authors table, the audiences
// table) to values, and the values' keys (an author; an audience's members encoding) to
// ids. Such a row never changes and is never deleted, so an entry taken from a committed
// row stays true for the life of the file, whichever process wrote it: the cache is never
// invalidated, and it only ever holds committed rows (an append adds the rows it created
// after its commit, see interned). Its values are never modified and never handed out: a
// read copies them into the page it returns.
type internCache[K comparable, V any] struct {
	mu    sync.RWMutex
	limit int
	byID  map[int64]V
	byKey map[K]int64
}

func newInternCache[K comparable, V any]() *internCache[K, V] {
	return &internCache[K, V]{limit: internCacheLimit, byID: make(map[int64]V), byKey: make(map[K]int64)}
}

// id returns the id of the value whose key is key, if the cache holds it.
func (c *internCache[K, V]) id(key K) (int64, bool) {
	c.mu.RLock()
	id, ok := c.byKey[key]
	c.mu.RUnlock()
	return id, ok
}

// get returns the value of id, if the cache holds it. The caller must not modify it.
func (c *internCache[K, V]) get(id int64) (V, bool) {
	c.mu.RLock()
	v, ok := c.byID[id]
	c.mu.RUnlock()
	return v, ok
}

// add records the committed row id, holding v under key, emptying the cache first when it
// is full. The cache keeps v: the caller must not modify it.
func (c *internCache[K, V]) add(id int64, key K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok {
		return
	}
	if len(c.byID) >= c.limit {
		clear(c.byID)
		clear(c.byKey)
	}
	c.byID[id] = v
	c.byKey[key] = id
}

// interned is the rows of one interned table that a write transaction found or created, by
// key: the cache takes them once the transaction commits (commit).
type interned[K comparable, V any] struct {
	cache *internCache[K, V]
	rows  map[K]internedRow[V]
}

// internedRow is one row a transaction found or created: its id and value.
type internedRow[V any] struct {
	id    int64
	value V
}

// known returns the id of the row whose key is key, if the cache holds it or the
// transaction found or created it already.
func (t *interned[K, V]) known(key K) (int64, bool) {
	if id, ok := t.cache.id(key); ok {
		return id, true
	}
	r, ok := t.rows[key]
	return r.id, ok
}

// findOrCreate returns the id of the row holding value, whose key is key and which known
// does not know, in the write transaction tx: by find (the row's unique key, args), or by
// creating it with insert (the same args). value is kept for the cache: the caller must not
// modify it after.
func (t *interned[K, V]) findOrCreate(ctx context.Context, tx *sql.Tx, find, insert *sql.Stmt, key K, value V, args ...any) (int64, error) {
	var id int64
	err := tx.StmtContext(ctx, find).QueryRowContext(ctx, args...).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var res sql.Result
		if res, err = tx.StmtContext(ctx, insert).ExecContext(ctx, args...); err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		return 0, err
	}
	if t.rows == nil {
		t.rows = make(map[K]internedRow[V])
	}
	t.rows[key] = internedRow[V]{id: id, value: value}
	return id, nil
}

// commit hands the rows the transaction found or created to the cache, once it committed.
func (t *interned[K, V]) commit() {
	for key, r := range t.rows {
		t.cache.add(r.id, key, r.value)
	}
}
