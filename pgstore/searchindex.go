package pgstore

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// insertTermsSQL inserts, in the same transaction and after insertSQL, the terms of the $2
// rows insertSQL inserted: $3 holds each row's terms joined by spaces (indexTerms), ""
// for a row no search finds, which gets none; $4 their keys (rowKeys), $5 each row's reader
// set (readerSetKey), and $6 and $7 each row's parent as insertSQL takes them (a Seq, or a
// batch index). The rows are numbered as insertSQL numbers them, from the desk's head,
// which the transaction holds.
const insertTermsSQL = `
INSERT INTO transcript_terms (desk, readers, seq, parent, terms, keys)
SELECT $1, r.readers, d.head - $2 + r.ord,
       CASE WHEN r.batch >= 0 THEN d.head - $2 + r.batch + 1 ELSE r.parent END,
       string_to_array(r.terms, ' '), string_to_array(r.keys, ' ')::bigint[]
FROM transcript_desks d,
     unnest($3::text[], $4::text[], $5::bigint[], $6::bigint[], $7::bigint[]) WITH ORDINALITY AS r(terms, keys, readers, parent, batch, ord)
WHERE d.name = $1 AND r.terms <> ''`

// insertReadersSQL records, for desk $1, that the authors of kinds $2 and ids $3 belong to
// the reader sets $4 (transcript_term_readers); a pair recorded already is left as it is.
const insertReadersSQL = `
INSERT INTO transcript_term_readers (desk, kind, id, readers)
SELECT $1, r.kind, r.id, r.readers FROM unnest($2::smallint[], $3::text[], $4::bigint[]) AS r(kind, id, readers)
ON CONFLICT DO NOTHING`

// replaceTermsSQL sets the terms of row $3 of desk $1, in reader set $2, with parent $4,
// to $5 and their keys to $6: an edit's (indexTerms of its new content, not empty), in the
// transaction that applies the edit.
const replaceTermsSQL = `
INSERT INTO transcript_terms (desk, readers, seq, parent, terms, keys)
VALUES ($1, $2, $3, $4, string_to_array($5, ' '), string_to_array($6, ' ')::bigint[])
ON CONFLICT (desk, readers, seq) DO UPDATE SET terms = excluded.terms, keys = excluded.keys`

// deleteTermsSQL removes the terms of row $3 of desk $1, in reader set $2, which a
// correction left with no word a search finds (a redaction, an edit to blank content). A
// full-key equality on the primary key: one probe.
const deleteTermsSQL = `DELETE FROM transcript_terms WHERE desk = $1 AND readers = $2 AND seq = $3`

// indexTerms returns a row's terms as the statements above take them:
// storage.IndexTerms(m) joined by spaces, which no term holds; "" for none.
func indexTerms(m *transcript.Message) string {
	return strings.Join(storage.IndexTerms(m), " ")
}

// searchKey is a store's secret for the search index's keys: the 32 bytes of
// transcript_search_key. Keys are the first 64 bits of SHA-256 of the secret and what they
// stand for, so that nobody without the database can compute one, nor choose a word, a
// desk or an audience whose key collides with another's and so make a search read rows
// its viewer may not read.
type searchKey []byte

// hash returns the first 64 bits of SHA-256 of k, tag and parts, each part followed by a
// byte no UTF-8 text holds.
func (k searchKey) hash(tag byte, parts ...string) int64 {
	var a [160]byte
	b := append(append(a[:0], k...), tag)
	for _, p := range parts {
		b = append(append(b, p...), 0xff)
	}
	sum := sha256.Sum256(b)
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// termKey is the index's key of term on desk in the desk rows' set (0). A term's key in
// another set is termKey xor the set's readerSetKey. A hash may collide: a search checks
// the terms of every row the index finds, and the rows' readers, exactly.
func (k searchKey) termKey(desk, term string) int64 { return k.hash('t', desk, term) }

// termKeys returns termKey of each of terms on desk.
func (k searchKey) termKeys(desk string, terms []string) []int64 {
	keys := make([]int64, len(terms))
	for i, t := range terms {
		keys[i] = k.termKey(desk, t)
	}
	return keys
}

// readerSetKey returns the key of m's reader set: 0 for a desk row, which everyone reads;
// for an aside a keyed hash of its readers (m.Readers(), in canonical order, each its kind
// and id), never 0. Labels play no part.
func (k searchKey) readerSetKey(m *transcript.Message) int64 {
	if len(m.Audience) == 0 {
		return 0
	}
	readers := m.Readers()
	parts := make([]string, 0, 2*len(readers))
	for _, r := range readers {
		parts = append(parts, strconv.Itoa(int(r.Kind)), r.ID)
	}
	if set := k.hash('r', parts...); set != 0 {
		return set
	}
	return 1
}

// rowKeys returns the keys of terms (indexTerms of a row of desk) in reader set readers,
// as the statements above take them: joined by spaces.
func (k searchKey) rowKeys(desk, terms string, readers int64) string {
	var b []byte
	for i, t := range strings.Split(terms, " ") {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, k.termKey(desk, t)^readers, 10)
	}
	return string(b)
}

// readerSets collects transcript_term_readers' rows: each reader of each aside indexed,
// once for each desk and set.
type readerSets struct {
	desks   []string
	kinds   []int16
	ids     []string
	readers []int64
	seen    map[deskSet]bool
}

// deskSet is a reader set of a desk.
type deskSet struct {
	desk string
	key  int64
}

// add records the readers of m, an aside of desk whose reader set is key.
func (r *readerSets) add(desk string, m *transcript.Message, key int64) {
	if r.seen[deskSet{desk, key}] {
		return
	}
	if r.seen == nil {
		r.seen = make(map[deskSet]bool)
	}
	r.seen[deskSet{desk, key}] = true
	for _, a := range m.Readers() {
		r.desks, r.kinds, r.ids, r.readers = append(r.desks, desk), append(r.kinds, int16(a.Kind)), append(r.ids, a.ID), append(r.readers, key)
	}
}

// queue queues insertReadersSQL of the sets added, all of desk, if any, and returns how many results
// it queued: 0 or 1.
func (r *readerSets) queue(b *pgx.Batch, desk string) int {
	if len(r.readers) == 0 {
		return 0
	}
	b.Queue(insertReadersSQL, desk, r.kinds, r.ids, r.readers)
	return 1
}

// queueTerms queues on b, right after the insertSQL of rows to desk (whose arguments are
// args, insertArgs'), the insert of their terms and of their asides' reader sets, unless
// none has any terms or noTerms (a test's knob). It returns how many results it queued:
// 0 to 2.
func queueTerms(b *pgx.Batch, key searchKey, desk string, rows []transcript.Message, args []any, noTerms bool) int {
	if noTerms {
		return 0
	}
	var (
		terms   = make([]string, len(rows))
		keys    = make([]string, len(rows))
		readers = make([]int64, len(rows))
		sets    readerSets
		found   bool
	)
	for i := range rows {
		if terms[i] = indexTerms(&rows[i]); terms[i] == "" {
			continue
		}
		found = true
		readers[i] = key.readerSetKey(&rows[i])
		keys[i] = key.rowKeys(desk, terms[i], readers[i])
		if readers[i] != 0 {
			sets.add(desk, &rows[i], readers[i])
		}
	}
	if !found {
		return 0
	}
	b.Queue(insertTermsSQL, desk, int64(len(rows)), terms, keys, readers, args[2], args[3])
	return 1 + sets.queue(b, desk)
}

// keyedTermsArgs returns insertKeySQL's arguments for m's terms: its terms ("" for none,
// or when noTerms), their keys and its reader set.
func keyedTermsArgs(key searchKey, desk string, m *transcript.Message, noTerms bool) []any {
	terms := ""
	if !noTerms {
		terms = indexTerms(m)
	}
	if terms == "" {
		return []any{"", "", int64(0)}
	}
	readers := key.readerSetKey(m)
	return []any{terms, key.rowKeys(desk, terms, readers), readers}
}

// queueRevisedTerms queues on b the change of the terms of r's target, the stored row
// target: its edit's words, or none. It returns how many results it queued: 1 or 2.
func queueRevisedTerms(b *pgx.Batch, key searchKey, desk string, r *storage.Revision, target *transcript.Message) int {
	readers := key.readerSetKey(target)
	terms := indexTerms(&transcript.Message{Content: r.Content, Redacted: r.Redacted})
	if terms == "" {
		b.Queue(deleteTermsSQL, desk, readers, int64(r.Target))
		return 1
	}
	b.Queue(replaceTermsSQL, desk, readers, int64(r.Target), int64(target.Parent), terms, key.rowKeys(desk, terms, readers))
	if readers == 0 {
		return 1
	}
	var sets readerSets
	sets.add(desk, target, readers)
	return 1 + sets.queue(b, desk)
}
