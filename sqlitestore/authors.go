package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/sharedesk/transcript"
)

// The authors table's statements. An authors row is found by its unique (kind, ident, label)
// or by its id, never by a scan.
const (
	findAuthorSQL  = `SELECT id FROM authors WHERE kind = ?1 AND ident = ?2 AND label = ?3`
	newAuthorSQL   = `INSERT INTO authors (kind, ident, label) VALUES (?1, ?2, ?3)`
	readAuthorsSQL = `SELECT id, kind, ident, label FROM authors WHERE id IN (SELECT value FROM json_each(?1))`
)

// authorCacheLimit bounds a Store's author cache. A desk has a few dozen authors; in a file
// with more (a label per message, say), the cache starts afresh whenever it is full, so it
// holds the authors of recent reads and appends, and the others cost a lookup in the
// authors table.
const authorCacheLimit = 4096

// authorCache maps the ids of the authors table to authors and back. An authors row never
// changes and is never deleted, so an entry taken from a committed row stays true for the
// life of the file, whichever process wrote it: the cache is never invalidated. It only
// ever holds committed rows: an append adds the authors it created after its commit.
type authorCache struct {
	mu    sync.RWMutex
	limit int
	byID  map[int64]transcript.Author
	byKey map[transcript.Author]int64
}

func newAuthorCache() *authorCache {
	return &authorCache{
		limit: authorCacheLimit,
		byID:  make(map[int64]transcript.Author),
		byKey: make(map[transcript.Author]int64),
	}
}

// id returns the id of author a, if the cache holds it.
func (c *authorCache) id(a transcript.Author) (int64, bool) {
	c.mu.RLock()
	id, ok := c.byKey[a]
	c.mu.RUnlock()
	return id, ok
}

// add records the committed authors row id, emptying the cache first when it is full.
func (c *authorCache) add(id int64, a transcript.Author) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byID[id]; ok {
		return
	}
	if len(c.byID) >= c.limit {
		clear(c.byID)
		clear(c.byKey)
	}
	c.byID[id] = a
	c.byKey[a] = id
}

// resolveAuthors sets msgs[i].Author to the author whose id is refs[i].author, from the
// cache or, for the ids it lacks, from one query on the readers. An id without an authors
// row is an error: the file was changed outside this package.
func (s *Store) resolveAuthors(ctx context.Context, msgs []transcript.Message, refs []rowRefs) error {
	var missing []int // indexes of the rows whose author the cache lacks
	s.authors.mu.RLock()
	for i, r := range refs {
		if a, ok := s.authors.byID[r.author]; ok {
			msgs[i].Author = a
		} else {
			missing = append(missing, i)
		}
	}
	s.authors.mu.RUnlock()
	if len(missing) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(missing))
	for _, i := range missing {
		if !slices.Contains(ids, refs[i].author) { // a page has few authors
			ids = append(ids, refs[i].author)
		}
	}
	found, err := s.readAuthors(ctx, ids)
	if err != nil {
		return err
	}
	for _, i := range missing {
		a, ok := found[refs[i].author]
		if !ok {
			return fmt.Errorf("row %d names author %d, which the authors table does not hold", msgs[i].Seq, refs[i].author)
		}
		msgs[i].Author = a
	}
	for id, a := range found {
		s.authors.add(id, a)
	}
	return nil
}

// readAuthors reads the authors rows of ids.
func (s *Store) readAuthors(ctx context.Context, ids []int64) (map[int64]transcript.Author, error) {
	list, err := json.Marshal(ids)
	if err != nil {
		return nil, err
	}
	rows, err := s.readAuthorsStmt.QueryContext(ctx, string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	found := make(map[int64]transcript.Author, len(ids))
	for rows.Next() {
		var (
			id, kind int64
			a        transcript.Author
		)
		if err := rows.Scan(&id, &kind, &a.ID, &a.Label); err != nil {
			return nil, err
		}
		a.Kind = transcript.AuthorKind(kind)
		found[id] = a
	}
	return found, rows.Err()
}

// authorID returns the id of author a in the write transaction, creating its row when the
// file has none. The rows it creates are cached only once the transaction commits.
func (w *writeTx) authorID(ctx context.Context, a transcript.Author) (int64, error) {
	if id, ok := w.s.authors.id(a); ok {
		return id, nil
	}
	if id, ok := w.newAuthors[a]; ok {
		return id, nil
	}
	var id int64
	err := w.tx.StmtContext(ctx, w.s.findAuthor).QueryRowContext(ctx, int64(a.Kind), a.ID, a.Label).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		var res sql.Result
		if res, err = w.tx.StmtContext(ctx, w.s.newAuthor).ExecContext(ctx, int64(a.Kind), a.ID, a.Label); err == nil {
			id, err = res.LastInsertId()
		}
	}
	if err != nil {
		return 0, fmt.Errorf("author %v: %w", a, err)
	}
	if w.newAuthors == nil {
		w.newAuthors = make(map[transcript.Author]int64)
	}
	w.newAuthors[a] = id
	return id, nil
}
