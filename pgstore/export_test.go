package pgstore

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// SetBeforeCommit installs f to run inside every append's transaction after its rows are
// inserted and before it commits: the test seam that holds a transaction open. While one is
// set (nil unsets it), every append sends its COMMIT in a round trip of its own, after f,
// where the appends of rows that reply to no stored row otherwise send it with their
// insert; a keyed root whose key is present then rolls back. Set it before the store is
// used concurrently.
func SetBeforeCommit(s *Store, f func(ctx context.Context, desk string, rows []transcript.Message)) {
	s.hooks.beforeCommit = f
}

// SetNotifySQL makes s send sql, with the desk's name as its one argument, in the place of
// the notification after each append's COMMIT: "" puts the package's back. Set it before
// the store is used concurrently.
func SetNotifySQL(s *Store, sql string) { s.hooks.notifySQL = sql }

// SetWatchPingAfter makes the Watches s starts from now on ping the server after d of
// silence instead of watchPingAfter: 0 puts watchPingAfter back.
func SetWatchPingAfter(s *Store, d time.Duration) { s.hooks.pingAfter = d }

// MigrateTo brings the schema of pool's database up to version (at most LatestVersion).
func MigrateTo(ctx context.Context, pool *pgxpool.Pool, version int) error {
	return migrate(ctx, pool, version, true, nil)
}

// LatestVersion is the schema version this package migrates to.
var LatestVersion = len(migrations)

// ReadBeforeSQL is the query behind ReadBefore, for the EXPLAIN tests; ReadBeforeGatedSQL
// the same gated on a pending token.
const (
	ReadBeforeSQL      = readBeforeSQL
	ReadBeforeGatedSQL = readBeforeGatedSQL
)

// StoredRowsSQL and StoredRowSQL are the lookups of a correction's stored targets (and
// parents), ReviseSQL and EraseSQL its updates of them, for the EXPLAIN tests.
const (
	StoredRowsSQL = storedRowsSQL
	StoredRowSQL  = storedRowSQL
	ReviseSQL     = reviseSQL
	EraseSQL      = eraseSQL
)

// ParentsSQL is the lookup of an append's stored parents, for the EXPLAIN tests.
const ParentsSQL = parentsSQL

// ParentSQL and KeyRowSQL are the lookups of one parent and of one key, for the EXPLAIN
// tests.
const (
	ParentSQL = parentSQL
	KeyRowSQL = keyRowSQL
)

// KeyRowsSQL is the lookup of rows by key (an append's, and LookupKeys'), for the EXPLAIN
// tests.
const KeyRowsSQL = keyRowsSQL

// The token statements, for the EXPLAIN tests.
const (
	TokenByHashSQL = tokenByHashSQL
	RevokeTokenSQL = revokeTokenSQL
	ListTokensSQL  = listTokensSQL
)

// KeyLookupChunk is how many keys one query of LookupKeys looks up.
const KeyLookupChunk = keyLookupChunk

// ScanMessages decodes rows of the store's message columns as ReadBefore does, for the
// benchmarks' hand-written queries.
func ScanMessages(rows pgx.Rows) ([]transcript.Message, error) {
	return scanMessages(rows, nil, new(audienceCache))
}

// EncodeAudience is the stored form of an aside's audience, for the tests and benchmarks
// that load rows with COPY.
func EncodeAudience(audience []transcript.Author) (string, error) { return encodeAudience(audience) }

// ReadAhead returns how many rows log holds read ahead and their bound.
func ReadAhead(log transcript.Log) (int, transcript.Sequence) {
	a := &log.(*deskLog).ahead
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.rows), a.bound
}

// ReadQueries returns how many queries the store's Logs have made.
func ReadQueries(s *Store) int64 { return s.hooks.reads.Load() }

// StandbyReads returns how many reads each of s's standbys answered, in WithStandbys'
// order, and how many reads went to the primary after the standbys could not answer.
func StandbyReads(s *Store) (standbys []int64, primary int64) {
	for _, sb := range s.replicas.standbys {
		standbys = append(standbys, sb.served.Load())
	}
	return standbys, s.replicas.primaryReads.Load()
}

// StandbyRefused reports whether s's standby i was found, once it answered, to be no
// standby of the primary's database, or at a newer schema: never to be read from.
func StandbyRefused(s *Store, i int) bool { return s.replicas.standbys[i].load() == refused }

// WithStandbyOpenWait sets how long Open waits for a standby to replay the primary's
// schema, instead of standbyOpenWait: 0 puts standbyOpenWait back.
func WithStandbyOpenWait(d time.Duration) Option {
	return func(s *Store) error { s.hooks.standbyOpenWait = d; return nil }
}

// Judge is judge, for its table test: "whole", "lagging" or "unsure".
func Judge(rows []transcript.Message, bound, known, head int64) string {
	return [...]string{whole: "whole", lagging: "lagging", unsure: "unsure"}[judge(rows, bound, known, head)]
}

// StandbyWaitsRanOut returns how many times a read of s waited for a standby to replay a
// row until its wait ran out.
func StandbyWaitsRanOut(s *Store) int64 { return s.hooks.waitsRanOut.Load() }

// SetNoTerms makes s's appends write no terms for search (on) or write them again (off):
// an append as it was before the search index, for the benchmarks of its cost. Set it
// before the store is used concurrently.
func SetNoTerms(s *Store, on bool) { s.hooks.noTerms = on }

// SearchSQL and SearchThreadSQL are the queries behind Search, of a whole desk and of a
// thread, for the EXPLAIN tests.
var (
	SearchSQL       = searchSQL
	SearchThreadSQL = searchThreadSQL
)

// SearchRecentRows and SearchProbeRows are how many of a desk's newest rows a search reads
// first and how many of the GIN index's rows of a set it may sort, for the EXPLAIN tests.
const (
	SearchRecentRows = searchRecentRows
	SearchProbeRows  = searchProbeRows
)

// SearchKeyOf returns the search index's key kept in q's database.
func SearchKeyOf(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}) ([]byte, error) {
	var key []byte
	err := q.QueryRow(ctx, `SELECT key FROM transcript_search_key`).Scan(&key)
	return key, err
}

// TermsRow returns the row of transcript_terms an append of m, stored as row m.Seq of
// desk, writes (desk, readers, seq, parent, terms, keys) with the search index's key key,
// or nil when it writes none; and the rows of transcript_term_readers it writes (desk,
// kind, id, readers).
func TermsRow(key []byte, desk string, m *transcript.Message) (row []any, readers [][]any) {
	terms := indexTerms(m)
	if terms == "" {
		return nil, nil
	}
	k := searchKey(key)
	set := k.readerSetKey(m)
	keys := make([]int64, 0, 8)
	for _, t := range storage.IndexTerms(m) {
		keys = append(keys, k.termKey(desk, t)^set)
	}
	if set != 0 {
		for _, a := range m.Readers() {
			readers = append(readers, []any{desk, int16(a.Kind), a.ID, set})
		}
	}
	return []any{desk, set, int64(m.Seq), int64(m.Parent), storage.IndexTerms(m), keys}, readers
}

// TermKeys returns the keys a search of desk sends for terms, with the search index's key
// key, for the EXPLAIN tests.
func TermKeys(key []byte, desk string, terms []string) []int64 {
	return searchKey(key).termKeys(desk, terms)
}

// RebuildTerms rebuilds the search index of pool's database, as a migration does, telling
// progress how it goes.
func RebuildTerms(ctx context.Context, pool *pgxpool.Pool, progress IndexProgress) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := rebuildTerms(ctx, tx, progress); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// oldInsertTermsSQL is insertTermsSQL as schema version 8 had it: bare terms, no reader
// set, for the benchmark of the index's append cost against the old one.
const oldInsertTermsSQL = `
INSERT INTO transcript_terms (desk, seq, terms)
SELECT $1, d.head - $2 + r.ord, string_to_array(r.terms, ' ')
FROM transcript_desks d, unnest($3::text[]) WITH ORDINALITY AS r(terms, ord)
WHERE d.name = $1 AND r.terms <> ''`

// RawAppend appends m, a root without a key whose Audience is final, to desk of pool's
// database in one round trip, as an append of a root does (BEGIN, the head's move, the
// insert, its terms, COMMIT; no notification): with its terms as this package writes them
// (old false, schema version 9 or later), or as version 8 wrote them (old, a database at
// version 8). The two are the same work but the index's.
func RawAppend(ctx context.Context, pool *pgxpool.Pool, desk string, m transcript.Message, old bool) error {
	rows := []transcript.Message{m}
	args, err := insertArgs(desk, rows, true)
	if err != nil {
		return err
	}
	var b pgx.Batch
	b.Queue(beginSQL)
	b.Queue(lockHeadSQL, desk, int64(1))
	b.Queue(insertSQL, args...)
	n := 0
	if old {
		if terms := indexTerms(&m); terms != "" {
			b.Queue(oldInsertTermsSQL, desk, int64(1), []string{terms})
			n = 1
		}
	} else {
		key, err := SearchKeyOf(ctx, pool)
		if err != nil {
			return err
		}
		n = queueTerms(&b, key, desk, rows, args, false)
	}
	b.Queue("COMMIT")
	br := pool.SendBatch(ctx, &b)
	defer br.Close()
	for range 4 + n {
		if _, err := br.Exec(); err != nil {
			return err
		}
	}
	return br.Close()
}

// WithoutFenceWatch keeps a Store with standbys from watching the primary for its fences:
// each read learns its desk's head on the primary instead.
func WithoutFenceWatch() Option {
	return func(s *Store) error { s.hooks.noFenceWatch = true; return nil }
}

// Fence is the newest row of desk that s knows is committed, and whether its own watch of
// the primary listens.
func Fence(s *Store, desk string) (int64, bool) {
	return s.replicas.fences.get(desk), s.replicas.watching.Load()
}
