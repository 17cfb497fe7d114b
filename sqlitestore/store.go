package sqlitestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/sharedesk/transcript/internal/watchset"
)

// Store is a SQLite database file holding the logs of any number of desks. It is safe for
// concurrent use by multiple goroutines, and several processes may open the same file.
//
// Appends go through one writer connection, one transaction at a time, so sequences are
// assigned in commit order; reads use a pool of reader connections and never wait for an
// append (WAL mode): each read sees the rows committed when it started.
type Store struct {
	readOnly   bool     // ReadOnly: every write is refused with ErrReadOnly
	path       string   // the database file, as given to Open
	made       []string // ReadOnly: the sidecars absent at Open, for Close to remove if SQLite made them
	writer     *sql.DB  // one connection
	readers    *sql.DB  // query_only connections
	maxContent int
	skipIndex  bool // appends leave the search index alone: set by benchmarks only, to measure its cost
	// searches read every reader set of the desk, as the operator's do, and drop what the
	// viewer may not read afterwards: set by a test only, to show the work check catches it
	searchEverySet bool
	authors        *authorCache
	audiences      *audienceCache
	readerSets     *readerSetCache
	searchKey      []byte      // the file's search key (see tokenHasher)
	work           *searchWork // this Store's search work, counted by workID
	workID         int64

	// Prepared statements: the writer's, on its one connection, and the readers'.
	deskHead, newDesk, insert, insertMany, findAuthor, newAuthor         *sql.Stmt
	findAudience, newAudience, parents, keyRow, keyRows                  *sql.Stmt
	revise, eraseCorrections, indexOne, unindexStmt, target              *sql.Stmt
	readPage, listDesks, readAuthorsStmt, readAudiencesStmt, keyRowsStmt *sql.Stmt
	search, searchReplies, searchRoot, viewerSets, allSets               *sql.Stmt // readers
	addToken, revokeToken, tokenByHash, listTokens                       *sql.Stmt // writer, writer, readers, readers
	insertBook, updateBook, loadBook                                     *sql.Stmt // writer, writer, readers
	digests                                                              digestStmts
	closed                                                               atomic.Bool

	// readerDSN opens a Watch's connection, which polls every watchInterval. watches is
	// every Watch running, for Close to end and wait for.
	readerDSN     string
	watchInterval time.Duration
	watches       watchset.Set[*watch]
}

// Open opens the store in the SQLite file at path, creating the file when it does not exist,
// and creates or migrates its schema to SchemaVersion. It creates the schema only in a file
// that holds nothing yet (a new or empty one): a directory, a file that is not a SQLite
// database, and another program's SQLite database are errors matching ErrNotStore, and a
// database written by a newer version of this package is a *SchemaError; Open leaves them
// untouched. With ReadOnly it writes nothing to the database but what SQLite writes as the
// file's last connection closes (ReadOnly); and as it closes, it removes the write-ahead log
// and index beside a WAL-mode file, when it made them or the log holds frames, and no other
// process uses the file, so that a read leaves the directory as it found it, and no erased
// text in the log. ctx bounds the opening and the migration only, not the Store's life.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	c := defaultConfig()
	for _, opt := range opts {
		opt(&c)
	}
	if c.err != nil {
		return nil, c.err
	}
	if path == "" || path == ":memory:" {
		return nil, fmt.Errorf("sqlitestore: open %q: the store needs a database file", path)
	}
	state, version, err := inspect(ctx, path, c)
	if err != nil {
		return nil, err
	}
	if c.readOnly {
		if err := checkReadOnly(path, state, version); err != nil {
			return nil, err
		}
	}
	s := &Store{readOnly: c.readOnly, path: path, maxContent: c.maxContent, authors: newAuthorCache(), audiences: newAudienceCache(), readerSets: &readerSetCache{}, watchInterval: c.watchInterval}
	s.work, s.workID = new(searchWork), lastWorkID.Add(1)
	workCounters.Store(s.workID, s.work)
	if c.readOnly {
		s.made = absentSidecars(path)
	}
	if err := s.open(ctx, path, c); err != nil {
		s.closeAll()
		return nil, err
	}
	return s, nil
}

func (s *Store) open(ctx context.Context, path string, c config) error {
	writerDSN, err := dsn(path, c, true)
	if err != nil {
		return err
	}
	readerDSN, err := dsn(path, c, false)
	if err != nil {
		return err
	}
	s.readerDSN = readerDSN
	if !c.readOnly {
		if err := s.migrateFile(ctx, path, writerDSN, c); err != nil {
			return err
		}
	}
	if s.writer, err = sql.Open(driverName, writerDSN); err != nil {
		return fmt.Errorf("sqlitestore: open %q: %w", path, err)
	}
	s.writer.SetMaxOpenConns(1)
	s.writer.SetMaxIdleConns(1)
	s.writer.SetConnMaxLifetime(0)
	s.writer.SetConnMaxIdleTime(0)
	if s.readers, err = sql.Open(driverName, readerDSN); err != nil {
		return fmt.Errorf("sqlitestore: open %q: %w", path, err)
	}
	s.readers.SetMaxOpenConns(c.readers)
	s.readers.SetMaxIdleConns(c.readers)
	s.readers.SetConnMaxLifetime(0)
	s.readers.SetConnMaxIdleTime(0)
	for _, p := range []struct {
		stmt **sql.Stmt
		db   *sql.DB
		sql  string
	}{
		{&s.deskHead, s.writer, deskHeadSQL},
		{&s.newDesk, s.writer, newDeskSQL},
		{&s.insert, s.writer, insertSQL},
		{&s.insertMany, s.writer, insertRowsSQL(insertChunk)},
		{&s.findAuthor, s.writer, findAuthorSQL},
		{&s.newAuthor, s.writer, newAuthorSQL},
		{&s.findAudience, s.writer, findAudienceSQL},
		{&s.newAudience, s.writer, newAudienceSQL},
		{&s.parents, s.writer, parentsSQL},
		{&s.keyRow, s.writer, keyRowSQL},
		{&s.keyRows, s.writer, keyRowsSQL},
		{&s.revise, s.writer, reviseSQL},
		{&s.eraseCorrections, s.writer, eraseCorrectionsSQL},
		{&s.indexOne, s.writer, indexOneSQL},
		{&s.unindexStmt, s.writer, unindexSQL},
		{&s.target, s.writer, targetSQL},
		{&s.readPage, s.readers, readPageSQL},
		{&s.search, s.readers, searchSQL},
		{&s.searchReplies, s.readers, searchRepliesSQL},
		{&s.searchRoot, s.readers, searchRootSQL},
		{&s.viewerSets, s.readers, viewerSetsSQL},
		{&s.allSets, s.readers, allSetsSQL},
		{&s.listDesks, s.readers, listDesksSQL},
		{&s.readAuthorsStmt, s.readers, readAuthorsSQL},
		{&s.readAudiencesStmt, s.readers, readAudiencesSQL},
		{&s.keyRowsStmt, s.readers, keyRowsSQL},
		{&s.addToken, s.writer, addTokenSQL},
		{&s.revokeToken, s.writer, revokeTokenSQL},
		{&s.tokenByHash, s.readers, tokenByHashSQL},
		{&s.listTokens, s.readers, listTokensSQL},
		{&s.insertBook, s.writer, insertBookSQL},
		{&s.updateBook, s.writer, updateBookSQL},
		{&s.loadBook, s.readers, loadBookSQL},
	} {
		if *p.stmt, err = p.db.PrepareContext(ctx, p.sql); err != nil {
			return fmt.Errorf("sqlitestore: open %q: preparing %q: %w", path, p.sql, err)
		}
	}
	if err := s.prepareDigests(ctx); err != nil {
		return fmt.Errorf("sqlitestore: open %q: %w", path, err)
	}
	if s.searchKey, err = readSearchKey(ctx, s.readers); err != nil {
		return fmt.Errorf("sqlitestore: open %q: %w", path, err)
	}
	return nil
}

// migrateFile brings the file at path to the current schema, in WAL mode, on a connection of
// its own (writerDSN's), closed before the Store's writer connects: the connection that put
// a new file in WAL mode could not truncate the write-ahead log at Close while another
// Store on the file that had written was open, and waited out the busy timeout.
func (s *Store) migrateFile(ctx context.Context, path, writerDSN string, c config) error {
	db, err := sql.Open(driverName, writerDSN)
	if err != nil {
		return fmt.Errorf("sqlitestore: open %q: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := migrateRetrying(context.WithValue(ctx, indexProgressKey{}, c.indexProgress), db, c.busyTimeout); err != nil {
		var schemaErr *SchemaError
		if errors.As(err, &schemaErr) {
			schemaErr.Path = path
			return schemaErr
		}
		return explainOpen(path, err)
	}
	return db.Close()
}

// Close ends every Watch, closing its channel and its connection, and waits for them; then
// it closes the store's connections, the writer's after checkpointing the write-ahead log
// into the database and truncating it (see checkpoint), so that text a redaction erased is
// left in no file of the database. Reads and appends in flight may fail; every call after
// Close returns ErrClosed. Close is idempotent.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.watches.Close()
	return s.closeAll()
}

func (s *Store) closeAll() error {
	var errs []error
	closeStmts := func(stmts ...*sql.Stmt) {
		for _, stmt := range stmts {
			if stmt != nil {
				errs = append(errs, stmt.Close())
			}
		}
	}
	// The readers first: the checkpoint truncates the log only once no connection of this
	// process reads it.
	workCounters.Delete(s.workID)
	errs = append(errs, s.digests.close()...)
	closeStmts(s.readPage, s.search, s.searchReplies, s.searchRoot, s.viewerSets, s.allSets, s.listDesks, s.readAuthorsStmt, s.readAudiencesStmt, s.keyRowsStmt, s.tokenByHash, s.listTokens, s.loadBook)
	if s.readers != nil {
		errs = append(errs, s.readers.Close())
	}
	if s.writer != nil && !s.readOnly {
		errs = append(errs, s.checkpoint())
	}
	closeStmts(s.deskHead, s.newDesk, s.insert, s.insertMany, s.findAuthor, s.newAuthor, s.findAudience, s.newAudience,
		s.parents, s.keyRow, s.keyRows, s.revise, s.eraseCorrections, s.indexOne, s.unindexStmt, s.target, s.addToken, s.revokeToken, s.insertBook, s.updateBook)
	if s.writer != nil {
		errs = append(errs, s.writer.Close())
	}
	if s.readOnly {
		removeSidecars(s.path, s.made)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("sqlitestore: close: %w", err)
	}
	return nil
}

// checkpoint copies the write-ahead log into the database and truncates it to nothing (the
// log keeps the frames of earlier writes, erased text among them, until then). It names the
// main database, the file: a checkpoint of every database of the connection was answered
// SQLITE_LOCKED on a connection that had not written yet (the driver's SQLite 3.54). While another
// process holds a read open on the file, SQLite waits for it as long as the busy timeout
// allows and then leaves the log as it is: that is no error of this Store's, and the last
// connection to close the file checkpoints it then.
func (s *Store) checkpoint() error {
	var busy, frames, copied int
	if err := s.writer.QueryRow(`PRAGMA main.wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &copied); err != nil && !isBusy(err) {
		return fmt.Errorf("checkpointing the write-ahead log: %w", err)
	}
	return nil
}
