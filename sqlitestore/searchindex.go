package sqlitestore

// The search index (message_terms: see migrations/009_search.sql,
// migrations/010_reader_sets.sql and migrations/011_thread_tokens.sql): its entries,
// written in the transaction of every append, changed by corrections in theirs, and
// written for the rows a file holds when it is rebuilt.

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// The search index's statements (message_terms: see migrations/010_reader_sets.sql). An
// entry is written by its id and text (one row's by indexOneSQL, a batch's by indexListSQL
// from a JSON array of the entries of rows of consecutive ids from ?2, "" for a row
// without one, and the migration's from a JSON array of [id, entry] pairs), and deleted by
// its id and text as written.
const (
	indexSQL     = `INSERT INTO message_terms (rowid, terms) SELECT value ->> 0, value ->> 1 FROM json_each(?1)`
	indexListSQL = `INSERT INTO message_terms (rowid, terms) SELECT ?2 + key, value FROM json_each(?1) WHERE value <> ''`
	indexOneSQL  = `INSERT INTO message_terms (rowid, terms) VALUES (?1, ?2)`
	unindexSQL   = `INSERT INTO message_terms (message_terms, rowid, terms) VALUES ('delete', ?1, ?2)`
	// targetSQL reads a correction's target, before the correction changes it, on the
	// (desk, seq) index: its id, what its entry was computed from (its parent among it),
	// and its readers: its author's identity and its audience's members ('' for a desk row).
	targetSQL = `
SELECT m.id, m.parent, m.content, m.corrects, m.redacted, a.kind, a.ident, ifnull(au.members, '')
FROM messages AS m
JOIN authors AS a ON a.id = m.author
LEFT JOIN audiences AS au ON au.id = m.audience
WHERE m.desk = ?1 AND m.seq = ?2`
	// The reader sets' statements: a desk's set of readers found by its members, created
	// with one membership row a reader.
	findReaderSetSQL   = `SELECT id FROM reader_sets WHERE desk = ?1 AND members = ?2`
	newReaderSetSQL    = `INSERT INTO reader_sets (desk, members) VALUES (?1, ?2)`
	newSetMemberSQL    = `INSERT INTO reader_set_members (desk, kind, ident, reader_set) VALUES (?1, ?2, ?3, ?4)`
	readSearchKeySQL   = `SELECT key FROM search_key`
	searchKeyBytes     = 16 // the search key's length: 128 random bits
	tokenChars         = 13 // a token's characters: 5 bits each, 64 bits of a term's hash
	tokenBytes         = 2 * tokenChars
	publicReaderSet    = 0 // the reader set of a desk's rows (audience NULL)
	readerSetCacheSize = 4096
)

// A token is what the index holds for one term of one row: the first 64 bits of
// SHA-256(key ‖ desk ‖ reader set ‖ term), the key the file's search_key (random, made
// once by the migration), the desk's id and the reader set's id as 8 bytes each, little
// endian, so that the input is unambiguous. Its 64 bits are written 5 at a time, low bits
// first, as 13 characters U+0080 + v: C1 controls, each two bytes in UTF-8 (0xC2, 0x80 +
// v). No term holds one (a term is letters, digits and marks), so no run of bytes of a
// term, of any length, appears in a token; FTS5's ascii tokenizer keeps every character
// from U+0080 up inside a token, and JSON writes them as they are. A desk's rows and a
// reader set's rows thus have tokens of their own, and a search names only the tokens of
// the sets its viewer belongs to.
//
// A reply's entry also holds the thread token of its parent in its set: the token of
// SHA-256(key ‖ desk ‖ reader set ‖ 0x00 ‖ "thread" ‖ parent), the parent's Seq as 8
// bytes, little endian. No term starts with a NUL byte, so no term's token is computed
// from the same bytes. A search within thread T walks T's thread token in each of its
// viewer's sets: FTS5 reads the doclists of those tokens only, so the thread's replies of
// sets the viewer is not in are never read.
type tokenHasher struct {
	buf       []byte // key ‖ desk ‖ set, then the term being hashed
	n         int    // the length of key ‖ desk ‖ set
	desk, set int64
	// tokens, when not nil, holds the tokens computed so far (see remember), so that a
	// batch of many rows hashes each of its terms once a set.
	tokens map[tokenKey][tokenBytes]byte
}

// tokenKey is a term of a desk's reader set, whose token a tokenHasher remembers.
type tokenKey struct {
	desk, set int64
	term      string
}

// tokenCacheSize bounds the tokens a tokenHasher remembers: past it, it forgets them all.
const tokenCacheSize = 1 << 16

// reset makes h hash the terms of desk's reader set set, with key.
func (h *tokenHasher) reset(key []byte, desk, set int64) {
	h.buf = append(h.buf[:0], key...)
	h.buf = binary.LittleEndian.AppendUint64(h.buf, uint64(desk))
	h.buf = binary.LittleEndian.AppendUint64(h.buf, uint64(set))
	h.n, h.desk, h.set = len(h.buf), desk, set
}

// remember has h keep the tokens it computes, for the life of h.
func (h *tokenHasher) remember() {
	if h.tokens == nil {
		h.tokens = make(map[tokenKey][tokenBytes]byte)
	}
}

// appendToken appends to b the token of term.
func (h *tokenHasher) appendToken(b []byte, term string) []byte {
	if h.tokens != nil {
		if t, ok := h.tokens[tokenKey{h.desk, h.set, term}]; ok {
			return append(b, t[:]...)
		}
	}
	h.buf = append(h.buf[:h.n], term...)
	t := h.hash()
	if h.tokens != nil {
		if len(h.tokens) >= tokenCacheSize {
			clear(h.tokens)
		}
		h.tokens[tokenKey{h.desk, h.set, strings.Clone(term)}] = t // term may hold its content
	}
	return append(b, t[:]...)
}

// threadMark starts what a thread token is computed from, after key ‖ desk ‖ set.
const threadMark = "\x00thread"

// appendThreadToken appends to b the thread token of the replies to parent (a Seq).
func (h *tokenHasher) appendThreadToken(b []byte, parent int64) []byte {
	h.buf = binary.LittleEndian.AppendUint64(append(h.buf[:h.n], threadMark...), uint64(parent))
	t := h.hash()
	return append(b, t[:]...)
}

// hash returns the token of h.buf: its SHA-256's first 64 bits, 5 at a time.
func (h *tokenHasher) hash() [tokenBytes]byte {
	sum := sha256.Sum256(h.buf)
	v := binary.LittleEndian.Uint64(sum[:8])
	var t [tokenBytes]byte
	for i := 0; i < tokenBytes; i += 2 {
		t[i], t[i+1] = 0xc2, 0x80|byte(v&0x1f)
		v >>= 5
	}
	return t
}

// appendEntry appends to b the entry of a row whose terms are terms and whose parent is
// parent (0 for none): the terms' tokens, then for a reply its parent's thread token,
// joined by single spaces. An entry holds no byte that JSON escapes.
func (h *tokenHasher) appendEntry(b []byte, terms []string, parent int64) []byte {
	for i, t := range terms {
		if i > 0 {
			b = append(b, ' ')
		}
		b = h.appendToken(b, t)
	}
	if parent != 0 {
		b = h.appendThreadToken(append(b, ' '), parent)
	}
	return b
}

// appendMatch appends to b the FTS5 query that finds the rows of desk, among the reader
// sets sets, that hold every term of terms: per set its terms' tokens, each a quoted
// string, ANDed, and the sets ORed. FTS5 reads no entry of a set sets does not name.
func (h *tokenHasher) appendMatch(b []byte, key []byte, desk int64, sets []int64, terms []string) []byte {
	for i, set := range sets {
		if i > 0 {
			b = append(b, " OR "...)
		}
		h.reset(key, desk, set)
		b = append(b, '(')
		for j, t := range terms {
			if j > 0 {
				b = append(b, " AND "...)
			}
			b = append(h.appendToken(append(b, '"'), t), '"')
		}
		b = append(b, ')')
	}
	return b
}

// appendThreadMatch appends to b the FTS5 query that finds the rows of desk, among the
// reader sets sets, that reply to the row of Seq parent: the thread token of parent in
// each set, quoted, ORed.
func (h *tokenHasher) appendThreadMatch(b []byte, key []byte, desk int64, sets []int64, parent int64) []byte {
	for i, set := range sets {
		if i > 0 {
			b = append(b, " OR "...)
		}
		h.reset(key, desk, set)
		b = append(h.appendThreadToken(append(b, '"'), parent), '"')
	}
	return b
}

// readerSetKey is a reader set as the reader_sets table names it: its desk's id and its
// members encoding (see appendMembers).
type readerSetKey struct {
	desk    int64
	members string
}

// appendMembers appends to b the members encoding of readers, an aside's readers in the
// canonical order transcript.Message.Readers gives: a JSON array of [kind, ident] pairs,
// identities only (labels play no part in who may read).
func appendMembers(b []byte, readers []transcript.Author) []byte {
	b = append(b, '[')
	for i, a := range readers {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, int64(a.Kind), 10)
		b = append(b, ',', '"')
		b = appendJSONText(b, a.ID)
		b = append(b, '"', ']')
	}
	return append(b, ']')
}

// readerSetCache maps the reader sets of the file to their ids. A reader_sets row never
// changes and is never deleted, so an entry taken from a committed row stays true for the
// life of the file; the cache holds only committed rows, and is emptied when full.
type readerSetCache struct {
	mu  sync.RWMutex
	ids map[readerSetKey]int64
}

func (c *readerSetCache) id(k readerSetKey) (int64, bool) {
	c.mu.RLock()
	id, ok := c.ids[k]
	c.mu.RUnlock()
	return id, ok
}

func (c *readerSetCache) add(k readerSetKey, id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids == nil || len(c.ids) >= readerSetCacheSize {
		c.ids = make(map[readerSetKey]int64)
	}
	c.ids[k] = id
}

// internReaderSet returns the id of desk's reader set whose members encoding is members
// and whose readers are readers, in tx, creating its reader_sets row and its membership
// rows (one a reader, on which a search finds its viewer's sets) when the file has none.
func internReaderSet(ctx context.Context, tx *sql.Tx, desk int64, members string, readers []transcript.Author) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, findReaderSetSQL, desk, members).Scan(&id)
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return id, err
	}
	res, err := tx.ExecContext(ctx, newReaderSetSQL, desk, members)
	if err != nil {
		return 0, err
	}
	if id, err = res.LastInsertId(); err != nil {
		return 0, err
	}
	for _, a := range readers {
		if _, err := tx.ExecContext(ctx, newSetMemberSQL, desk, int64(a.Kind), a.ID, id); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// txReaderSets finds and makes the reader sets of one transaction's rows: known holds
// the sets it found in the file or made, by key; members is room for a members encoding.
type txReaderSets struct {
	members []byte
	known   map[readerSetKey]int64
}

// id returns the id of the reader set of m, an aside of desk (m.Readers()): found in
// cache (committed sets; nil for none), among the sets t knows, or in tx's file, and made
// in tx when desk has none.
func (t *txReaderSets) id(ctx context.Context, tx *sql.Tx, cache *readerSetCache, desk int64, m *transcript.Message) (int64, error) {
	readers := m.Readers()
	t.members = appendMembers(t.members[:0], readers)
	k := readerSetKey{desk: desk, members: string(t.members)}
	if cache != nil {
		if id, ok := cache.id(k); ok {
			return id, nil
		}
	}
	if id, ok := t.known[k]; ok {
		return id, nil
	}
	id, err := internReaderSet(ctx, tx, desk, k.members, readers)
	if err != nil {
		return 0, err
	}
	if t.known == nil {
		t.known = make(map[readerSetKey]int64)
	}
	t.known[k] = id
	return id, nil
}

// readerSet returns the id of the reader set of m, a row of the transaction's desk:
// publicReaderSet for a desk row, else the set of its readers, found in the Store's cache,
// among the sets the transaction found or made, or in the file, and made when the desk
// has none. The sets the transaction found or made are cached once it commits.
func (w *writeTx) readerSet(ctx context.Context, m *transcript.Message) (int64, error) {
	if len(m.Audience) == 0 {
		return publicReaderSet, nil
	}
	id, err := w.sets.id(ctx, w.tx, w.s.readerSets, w.desk, m)
	if err != nil {
		return 0, fmt.Errorf("the reader set of row %d: %w", m.Seq, err)
	}
	return id, nil
}

// entryOf sets w.entries to the search index's entry of m, a row of the transaction's desk
// (empty for a row without terms), computed with storage.IndexTerms, m's Parent and the
// tokens of m's reader set.
func (w *writeTx) entryOf(ctx context.Context, m *transcript.Message) error {
	w.entries = w.entries[:0]
	terms := storage.IndexTerms(m)
	if len(terms) == 0 {
		return nil
	}
	set, err := w.readerSet(ctx, m)
	if err != nil {
		return err
	}
	w.hasher.reset(w.s.searchKey, w.desk, set)
	w.entries = w.hasher.appendEntry(w.entries, terms, int64(m.Parent))
	return nil
}

// appendJSONText appends t to a JSON string being written: as it is, unless it holds a
// byte JSON escapes (an entry holds none: letters, digits, marks, "_" and spaces only).
func appendJSONText[T string | []byte](b []byte, t T) []byte {
	for i := 0; i < len(t); i++ {
		if c := t[i]; c < 0x20 || c == '"' || c == '\\' {
			q, _ := json.Marshal(string(t)) // a string always marshals
			return append(b, q[1:len(q)-1]...)
		}
	}
	return append(b, t...)
}

// indexListBytes bounds the entries index queues for one statement, so that a batch of
// millions of rows is indexed in bounded memory.
const indexListBytes = 16 << 20

// index queues the search index's entries of rows, the new rows of the transaction's desk
// whose messages.id are first, first+1, ..., and flushIndex writes them: in one statement
// (indexListSQL), from a JSON array of one string a row of consecutive ids, the row's entry
// or "" when it has none. One statement, because SQLite has FTS5 write the entries it
// holds as a segment of their own at the start of every statement of many rows in the
// transaction: entries written in many INSERTs (or between a batch's INSERTs of rows)
// made many small segments a batch, and merging them again cost more than writing them.
func (w *writeTx) index(ctx context.Context, first int64, rows []transcript.Message) error {
	if w.s.skipIndex {
		return nil
	}
	if w.queued > 0 && first != w.firstID+int64(w.queued) {
		if err := w.flushIndex(ctx); err != nil {
			return err
		}
	}
	if len(rows) > 1 {
		w.hasher.remember() // a batch's rows share most of their words
	}
	for i := range rows {
		if err := w.entryOf(ctx, &rows[i]); err != nil {
			return err
		}
		if w.queued == 0 {
			w.list, w.firstID = append(w.list[:0], '['), first+int64(i)
		} else {
			w.list = append(w.list, ',')
		}
		w.list = append(append(append(w.list, '"'), w.entries...), '"') // an entry needs no escape
		w.queued++
		if len(w.list) >= indexListBytes {
			if err := w.flushIndex(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// flushIndex writes the entries index queued: one row's by the prepared indexOne (an
// INSERT of one row, which starts no segment), others by indexListSQL.
func (w *writeTx) flushIndex(ctx context.Context) error {
	var err error
	switch {
	case w.queued == 0:
		return nil
	case w.queued > 1:
		_, err = w.tx.ExecContext(ctx, indexListSQL, string(append(w.list, ']')), w.firstID)
	case len(w.entries) > 0: // the one row's entry, as index left it
		_, err = w.tx.StmtContext(ctx, w.s.indexOne).ExecContext(ctx, w.firstID, string(w.entries))
	}
	if err != nil {
		return fmt.Errorf("indexing %d rows: %w", w.queued, err)
	}
	w.queued = 0
	return nil
}

// unindex deletes the search index's entry of row seq of the transaction's desk, before a
// correction changes the row, and returns the row's id and the row as its entry was
// computed from: parent, content, correction and erasure, author identity and audience. The entry
// is computed again from the row as stored, as index computed it (the index's terms are
// the running program's: see termsVersion); FTS5's secure-delete removes its tokens from
// the index's pages.
func (w *writeTx) unindex(ctx context.Context, seq transcript.Sequence) (int64, transcript.Message, error) {
	var (
		id, parent, corrects, kind int64
		members                    string
		m                          = transcript.Message{Seq: seq}
	)
	if err := w.tx.StmtContext(ctx, w.s.target).QueryRowContext(ctx, w.desk, int64(seq)).Scan(&id, &parent, &m.Content, &corrects, &m.Redacted, &kind, &m.Author.ID, &members); err != nil {
		return 0, m, fmt.Errorf("reading row %d: %w", seq, err)
	}
	m.Parent, m.Corrects, m.Author.Kind = transcript.Sequence(parent), transcript.Sequence(corrects), transcript.AuthorKind(kind)
	if members != "" {
		var err error
		if m.Audience, err = decodeMembers(members); err != nil {
			return 0, m, fmt.Errorf("reading row %d's audience: %w", seq, err)
		}
	}
	if w.s.skipIndex {
		return id, m, nil
	}
	if err := w.entryOf(ctx, &m); err != nil || len(w.entries) == 0 {
		return id, m, err
	}
	if _, err := w.tx.StmtContext(ctx, w.s.unindexStmt).ExecContext(ctx, id, string(w.entries)); err != nil {
		return 0, m, fmt.Errorf("unindexing row %d: %w", seq, err)
	}
	return id, m, nil
}

// Bounds of one chunk of the migration that indexes the rows a file holds: rows and bytes
// of content, so that a desk of millions of rows is indexed in bounded memory.
const (
	indexChunkRows  = 2048
	indexChunkBytes = 16 << 20
)

// termsVersion names the rules and tables storage.Terms computes terms with: the
// revision of its rules (2: runs of Han, Hiragana, Katakana and Hangul read as words of one
// and two characters), Go's Unicode tables (scripts, letters, digits, marks, lower case)
// and x/text's normalization tables. The same content gives the same terms while they stay
// the same.
var termsVersion = "terms 2, unicode " + unicode.Version + ", norm " + norm.Version

// The schema versions of the search index: searchIndexVersion the first whose entries are
// tokens of reader sets (migrations/010_reader_sets.sql), threadIndexVersion the first
// whose replies' entries hold thread tokens (migrations/011_thread_tokens.sql).
const (
	searchIndexVersion = 10
	threadIndexVersion = 11
)

// newSearchKey is the Go step of migration 10: it stores the file's search key, random,
// and marks the index stale (staleSearchIndex), for migrate to index the rows the file
// holds once, whatever migrations follow.
func newSearchKey(ctx context.Context, tx *sql.Tx) error {
	key := make([]byte, searchKeyBytes)
	if _, err := rand.Read(key); err != nil {
		return fmt.Errorf("making the search key: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO search_key (key) VALUES (?1)`, key); err != nil {
		return fmt.Errorf("storing the search key: %w", err)
	}
	return staleSearchIndex(ctx, tx)
}

// staleSearchIndex is the Go step of migration 11: it forgets the terms version the index
// was built with, so that syncTermsVersion, which migrate runs after the migrations, in
// their transaction, rebuilds it (indexStoredRows).
func staleSearchIndex(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM message_terms_version`); err != nil {
		return fmt.Errorf("marking the search index stale: %w", err)
	}
	return nil
}

// readSearchKey reads the file's search key.
func readSearchKey(ctx context.Context, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) ([]byte, error) {
	var key []byte
	if err := q.QueryRowContext(ctx, readSearchKeySQL).Scan(&key); err != nil {
		return nil, fmt.Errorf("reading the search key: %w", err)
	}
	if len(key) != searchKeyBytes {
		return nil, fmt.Errorf("reading the search key: %d bytes, want %d", len(key), searchKeyBytes)
	}
	return key, nil
}

// IndexProgress is told how far a rebuild of the search index has come: done of total
// rows. See WithIndexProgress.
type IndexProgress func(done, total int64)

type indexProgressKey struct{}

// progressOf returns the IndexProgress ctx carries, or one that does nothing.
func progressOf(ctx context.Context) IndexProgress {
	if p, ok := ctx.Value(indexProgressKey{}).(IndexProgress); ok && p != nil {
		return p
	}
	return func(int64, int64) {}
}

// indexStoredRows is the rebuild of the search index when its terms were computed with
// other tables than termsVersion's or the index is stale (syncTermsVersion): it deletes
// every entry, then writes the entry of every row tx's file holds, with
// storage.IndexTerms and the tokens of the row's reader set (made as the rows need
// them), in chunks read in id order, telling ctx's IndexProgress after each, and records
// termsVersion.
func indexStoredRows(ctx context.Context, tx *sql.Tx) error {
	for _, stmt := range []string{
		`INSERT INTO message_terms (message_terms) VALUES ('delete-all')`,
		`DELETE FROM message_terms_version`,
	} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("emptying the search index: %w", err)
		}
	}
	key, err := readSearchKey(ctx, tx)
	if err != nil {
		return err
	}
	var total int64
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM messages`).Scan(&total); err != nil {
		return fmt.Errorf("counting the rows to index: %w", err)
	}
	progress := progressOf(ctx)
	r := &reindex{key: key, audiences: make(map[string][]transcript.Author)}
	r.hasher.remember()
	var after, done int64
	for {
		next, n, err := r.chunk(ctx, tx, after)
		if err != nil {
			return err
		}
		if next == after {
			break
		}
		after, done = next, done+n
		progress(done, total)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO message_terms_version (version) VALUES (?1)`, termsVersion); err != nil {
		return fmt.Errorf("recording the search index's terms version: %w", err)
	}
	return nil
}

// syncTermsVersion rebuilds the search index of tx's file, at searchIndexVersion or later,
// when it is stale (a migration's Go step marked it so) or its entries were computed with
// other Unicode tables than the running program's (after an upgrade of Go or x/text), so
// that every entry is what index and unindex
// compute for its row now: a stale one could not be deleted, and would go on matching its
// row's old words.
func syncTermsVersion(ctx context.Context, tx *sql.Tx) error {
	var version string
	err := tx.QueryRowContext(ctx, `SELECT version FROM message_terms_version`).Scan(&version)
	if err == nil && version == termsVersion {
		return nil
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("reading the search index's terms version: %w", err)
	}
	return indexStoredRows(ctx, tx)
}

// reindex is one rebuild of the search index: the key, the reader sets found or made by
// their desk and members, and the audiences read, decoded, by their members.
type reindex struct {
	key       []byte
	hasher    tokenHasher
	sets      txReaderSets
	audiences map[string][]transcript.Author
}

// chunk indexes the rows whose id is above after, up to indexChunkRows of them or
// indexChunkBytes of content, and returns the last id it read (after, when none is left)
// and how many rows it read.
func (r *reindex) chunk(ctx context.Context, tx *sql.Tx, after int64) (int64, int64, error) {
	rows, err := tx.QueryContext(ctx, `
SELECT m.id, m.desk, m.parent, m.content, m.corrects, m.redacted, a.kind, a.ident, ifnull(au.members, '')
FROM messages AS m
JOIN authors AS a ON a.id = m.author
LEFT JOIN audiences AS au ON au.id = m.audience
WHERE m.id > ?1 ORDER BY m.id LIMIT ?2`, after, indexChunkRows)
	if err != nil {
		return after, 0, fmt.Errorf("reading the rows to index: %w", err)
	}
	defer rows.Close()
	type pending struct {
		id, desk int64
		m        transcript.Message
		terms    []string
	}
	var todo []pending
	last, bytes, n := after, 0, int64(0)
	for bytes < indexChunkBytes && rows.Next() {
		var (
			p                      pending
			parent, corrects, kind int64
			members                string
		)
		if err := rows.Scan(&p.id, &p.desk, &parent, &p.m.Content, &corrects, &p.m.Redacted, &kind, &p.m.Author.ID, &members); err != nil {
			return after, 0, fmt.Errorf("reading the rows to index: %w", err)
		}
		p.m.Parent, p.m.Corrects, p.m.Author.Kind = transcript.Sequence(parent), transcript.Sequence(corrects), transcript.AuthorKind(kind)
		last, bytes, n = p.id, bytes+len(p.m.Content), n+1
		if p.terms = storage.IndexTerms(&p.m); len(p.terms) == 0 {
			continue
		}
		if members != "" {
			a, ok := r.audiences[members]
			if !ok {
				if a, err = decodeMembers(members); err != nil {
					return after, 0, fmt.Errorf("reading the audience of the row of id %d: %w", p.id, err)
				}
				r.audiences[members] = a
			}
			p.m.Audience = a
		}
		todo = append(todo, p)
	}
	if err := rows.Err(); err != nil {
		return after, 0, fmt.Errorf("reading the rows to index: %w", err)
	}
	if err := rows.Close(); err != nil || len(todo) == 0 {
		return last, n, err
	}
	list := []byte{'['}
	for _, p := range todo {
		set := int64(publicReaderSet)
		if len(p.m.Audience) > 0 {
			if set, err = r.sets.id(ctx, tx, nil, p.desk, &p.m); err != nil {
				return after, 0, fmt.Errorf("the reader set of the row of id %d: %w", p.id, err)
			}
		}
		if len(list) > 1 {
			list = append(list, ',')
		}
		list = append(strconv.AppendInt(append(list, '['), p.id, 10), ',', '"')
		r.hasher.reset(r.key, p.desk, set)
		list = append(r.hasher.appendEntry(list, p.terms, int64(p.m.Parent)), '"', ']')
	}
	if _, err := tx.ExecContext(ctx, indexSQL, string(append(list, ']'))); err != nil {
		return after, 0, fmt.Errorf("indexing the rows after id %d: %w", after, err)
	}
	return last, n, nil
}
