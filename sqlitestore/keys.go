package sqlitestore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// keyRowsSQL reads the rows of a desk that hold the keys of a JSON array of strings: for each
// key one SEARCH of the partial (desk, key) index, whatever the desk's size. The term
// key IS NOT NULL is the index's own condition, spelt out so that the planner need not
// infer it from the IN.
const keyRowsSQL = `
SELECT ` + rowColumns + `
FROM messages
WHERE desk = (SELECT id FROM desks WHERE name = ?1) AND key IS NOT NULL
  AND key IN (SELECT value FROM json_each(?2))`

// keyRowSQL reads the row of a desk, named by its id, that holds one key: Append's, once its
// insert found the key present. A point SEARCH of the (desk, key) index.
const keyRowSQL = `
SELECT ` + rowColumns + `
FROM messages
WHERE desk = ?1 AND key = ?2`

// keyLookupChunk is how many keys one query of keyRowsSQL looks up: big enough that a
// lookup of many keys costs few statements, small enough that one query's JSON array and
// result stay small.
const keyLookupChunk = 2000

// LookupKeys returns the rows of desk that hold the given keys, by key, each as ReadBefore
// returns it (Key, Author and Audience included). A key the desk does not hold is absent
// from the map, and so is the empty key, which is no key; a desk the Store does not hold
// holds no key. Keys may repeat, in any order, and any number of them (a million is one
// call): LookupKeys looks them up 2,000 at a time, each chunk a query on the readers that
// searches the (desk, key) index once a key, so its cost grows with the keys, never with
// the desk. The chunks are separate reads: a row appended while LookupKeys runs may or may
// not be found, but every row found is whole and committed.
// The map and the rows' Audiences are new, and the caller's. Once ctx is done LookupKeys
// returns an error matching ctx.Err(); after Close, ErrClosed. It is safe for concurrent use.
func (s *Store) LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, ErrClosed
	}
	rows, err := s.rowsByKey(ctx, s.keyRowsStmt, desk, keys)
	if err != nil {
		return nil, stmtError(ctx, fmt.Sprintf("desk %q: looking up %d keys", desk, len(keys)), err)
	}
	found := make(map[string]transcript.Message, len(rows))
	for _, m := range rows {
		found[m.Key] = m
	}
	return found, nil
}

// rowsByKey returns the rows of desk holding keys, through stmt, which is keyRowsSQL on the
// readers or in a write transaction, in no particular order, resolved as a read resolves
// them (resolveAuthors, resolveAudiences): their Audiences are new, and the caller's.
// Empty keys are skipped.
func (s *Store) rowsByKey(ctx context.Context, stmt *sql.Stmt, desk string, keys []string) ([]transcript.Message, error) {
	var (
		// Room for a chunk's rows: a lookup often finds all of them (a re-import) or none.
		all   = make([]transcript.Message, 0, min(len(keys), keyLookupChunk))
		refs  []rowRefs
		chunk = make([]string, 0, min(len(keys), keyLookupChunk))
	)
	for next := 0; next < len(keys); {
		chunk = chunk[:0]
		for ; next < len(keys) && len(chunk) < keyLookupChunk; next++ {
			if keys[next] != "" {
				chunk = append(chunk, keys[next])
			}
		}
		if len(chunk) == 0 {
			continue
		}
		list, err := json.Marshal(chunk)
		if err != nil {
			return nil, err
		}
		rows, err := stmt.QueryContext(ctx, desk, string(list))
		if err != nil {
			return nil, err
		}
		start := len(all)
		all, refs, err = scanRows(rows, all, refs[:0])
		if err == nil {
			err = s.resolveAuthors(ctx, all[start:], refs)
		}
		if err == nil {
			err = s.resolveAudiences(ctx, all[start:], refs)
		}
		if err != nil {
			return nil, err
		}
	}
	return all, nil
}

// rowByKey returns the row of the desk holding key, which the desk holds, resolved as
// rowsByKey resolves it.
func (w *writeTx) rowByKey(ctx context.Context, key string) (transcript.Message, error) {
	rows, err := w.tx.StmtContext(ctx, w.s.keyRow).QueryContext(ctx, w.desk, key)
	if err != nil {
		return transcript.Message{}, err
	}
	msgs, refs, err := scanRows(rows, make([]transcript.Message, 0, 1), make([]rowRefs, 0, 1))
	if err == nil && len(msgs) == 0 {
		err = fmt.Errorf("key %q: the insert found it in the desk, the lookup did not", key)
	}
	if err == nil {
		err = w.s.resolveAuthors(ctx, msgs, refs)
	}
	if err == nil {
		err = w.s.resolveAudiences(ctx, msgs, refs)
	}
	if err != nil {
		return transcript.Message{}, err
	}
	return msgs[0], nil
}

// presentRows returns the rows of the desk holding the keys of b's messages, looked up in
// the write transaction, by key: none without a key, or in an empty desk. The caller must
// not modify them.
func (w *writeTx) presentRows(ctx context.Context, b *storage.Batch) (map[string]*transcript.Message, error) {
	if w.head == 0 {
		return nil, nil
	}
	var keys []string
	for _, m := range b.Messages {
		if m.Key != "" {
			if keys == nil {
				keys = make([]string, 0, len(b.Messages))
			}
			keys = append(keys, m.Key)
		}
	}
	if keys == nil {
		return nil, nil
	}
	rows, err := w.s.rowsByKey(ctx, w.tx.StmtContext(ctx, w.s.keyRows), b.Desk, keys)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	present := make(map[string]*transcript.Message, len(rows))
	for i := range rows {
		present[rows[i].Key] = &rows[i]
	}
	return present, nil
}
