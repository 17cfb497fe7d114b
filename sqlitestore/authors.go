package sqlitestore

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sharedesk/transcript"
)

// The authors table's statements. An authors row is found by its unique (kind, ident, label)
// or by its id, never by a scan.
const (
	findAuthorSQL  = `SELECT id FROM authors WHERE kind = ?1 AND ident = ?2 AND label = ?3`
	newAuthorSQL   = `INSERT INTO authors (kind, ident, label) VALUES (?1, ?2, ?3)`
	readAuthorsSQL = `SELECT id, kind, ident, label FROM authors WHERE id IN (SELECT value FROM json_each(?1))`
)

// authorCache is the authors table's intern cache: authors by the authors row's id, and
// ids by author.
type authorCache = internCache[transcript.Author, transcript.Author]

func newAuthorCache() *authorCache { return newInternCache[transcript.Author, transcript.Author]() }

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
		s.authors.add(id, a, a)
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
	if id, ok := w.authors.known(a); ok {
		return id, nil
	}
	id, err := w.authors.findOrCreate(ctx, w.tx, w.s.findAuthor, w.s.newAuthor, a, a, int64(a.Kind), a.ID, a.Label)
	if err != nil {
		return 0, fmt.Errorf("author %v: %w", a, err)
	}
	return id, nil
}
