package importer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sharedesk/transcript"
)

// Store is what an import needs of a store: a transcript.Store, such as sqlitestore.Store
// and pgstore.Store. An import looks its keys up (LookupKeys), appends its rows in batches
// (AppendBatch), and restores them instead when they carry what only the log sets (see
// restoredRow).
type Store interface {
	transcript.Store
}

// StoreCloser is a Store that ImportInto opens, and closes once it is done.
type StoreCloser interface {
	Store
	io.Closer
}

// Progress is told how an import goes, for a host that shows it. Begin starts a stage:
// label says what it does ("reading", "writing 3 messages"), total is how many bytes it
// reads when known, else 0; Advance says n more bytes were read; End ends the stage. The
// calls come from one goroutine at a time.
type Progress interface {
	Begin(label string, total int64)
	Advance(n int)
	End()
}

// An Option changes how Import, ImportInto, Read and Rows.Store work.
type Option func(*options)

type options struct {
	progress Progress
	ahead    *readAhead // the desk read while the source was (ImportInto), on the store Rows.Store is given
}

// WithProgress reports the import's stages to p.
func WithProgress(p Progress) Option { return func(o *options) { o.progress = p } }

func optionsOf(opts []Option) *options {
	o := &options{}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// Counts is what an import did to a desk.
type Counts struct {
	Added   int // rows appended, edits aside
	Edited  int // edits appended: messages of a chat export the desk held with an older text (see editOf)
	Present int // rows of the import the desk held already, identical or edited since, so not written again
	// Kept counts those of Present that a chat export holds otherwise without dating the
	// change (a file removed, a bot's update, a deleted thread root), or with an edit no
	// store takes (of a message stored blank, or to a blank text): the desk keeps its own.
	// A row corrected on the desk (edited or redacted) matches whatever the export's text,
	// as it stands, and counts as present alone.
	Kept int
}

// Import reads src and stores its messages in desk of st, all or nothing: Read, then
// Rows.Store. The error is a *RowsError when rows are bad (nothing is then written), else
// what reading src or the store said.
func Import(ctx context.Context, st Store, desk string, src Source, opts ...Option) (Counts, error) {
	rows, err := Read(src, opts...)
	if err != nil {
		return Counts{}, err
	}
	return rows.Store(ctx, st, desk, opts...)
}

// Database is a store that an import opens only once it knows what it needs of it.
type Database struct {
	// Exists reports whether the database exists yet. When it does not, the rows are
	// checked as against an empty desk first, the store's rules for rows included, and
	// when one is bad nothing is opened or created. A database that holds nothing yet, such
	// as a SQLite file of no bytes that Open would create a store in, does not exist yet:
	// given as existing, it is opened to write, and so made a store, before the rows are
	// known to be good.
	Exists bool
	// Open opens it to write, creating or migrating it as need be.
	Open func(context.Context) (StoreCloser, error)
	// OpenRead opens it read-only, to check rows that are bad against the desk: nothing
	// is written, so nothing need be created or migrated.
	OpenRead func(context.Context) (StoreCloser, error)
}

// ImportInto is Import into the desk of a database it opens as it needs to. When the
// database exists and src's size is known, it is opened and the desk read (whole, when
// src may repeat half of it) while src is read, on another CPU. Otherwise it is opened
// once src is read: read-only when a row is bad, and not at all when it does not exist yet
// and a row is bad (alone, or against an empty desk, which its desk then is). A bad
// row's problems are reported whatever the desk holds, even when the database cannot be
// opened. ImportInto closes what it opened.
func ImportInto(ctx context.Context, db Database, desk string, src Source, opts ...Option) (Counts, error) {
	var ahead *readAhead
	if size := src.Size(); db.Exists && size > 0 {
		ahead = startReadAhead(ctx, db.Open, desk, size)
		defer ahead.stop()
	}
	rows, err := Read(src, opts...)
	if err != nil {
		return Counts{}, err
	}
	var st Store
	switch {
	case ahead != nil:
		st, err = ahead.take()
	case rows.Faulty() && !db.Exists:
		// Checked as against an empty desk, with st nil.
	case !db.Exists:
		// Into a database that does not exist yet, the desk is empty: what is wrong against
		// it (a parent in neither the rows nor the desk, a key or seq twice, a seq that
		// cannot land, a row the store's rules refuse) is reported before the database is
		// created, so that a failed import leaves no file behind.
		if _, err := rows.store(ctx, nil, desk, &options{}); err != nil && !errors.Is(err, errNoDatabase) {
			return Counts{}, err
		}
		fallthrough
	default:
		open := db.Open
		if rows.Faulty() {
			open = db.OpenRead
		}
		var sc StoreCloser
		if sc, err = open(ctx); err == nil {
			defer sc.Close()
			st = sc
		}
	}
	if err != nil {
		if rows.Faulty() {
			return Counts{}, rows.Err() // wrong whatever the desk holds
		}
		return Counts{}, err
	}
	o := optionsOf(opts)
	o.ahead = ahead
	return rows.store(ctx, st, desk, o)
}

// Rows are the messages a source holds, read and checked each alone, before a desk is
// consulted. Rows.Store stores them.
type Rows struct {
	rows []importRow
	prep *importPrep
}

// Read reads every message of src. A message bad for what it holds alone (a line that is
// not JSON, a missing author) is a row too, so that Rows.Store reports it with what is
// wrong against the desk: see Faulty. The error is src's own: a file that cannot be read, an
// export without its users.json, or its bad messages (a *RowsError).
func Read(src Source, opts ...Option) (*Rows, error) {
	rows, err := src.ReadRows(optionsOf(opts).progress)
	if err == nil && rows == nil {
		return nil, errors.New("importer: the source's ReadRows returned neither rows nor an error")
	}
	return rows, err
}

// Len returns how many messages the rows hold.
func (r *Rows) Len() int { return len(r.rows) }

// Faulty reports whether a row is bad alone: storing the rows then fails whatever the desk
// holds, and writes nothing.
func (r *Rows) Faulty() bool { return r.prep != nil && r.prep.bad.n > 0 }

// Err returns what is wrong with the rows alone (a *RowsError), or nil: Store reports it
// with what is wrong against the desk.
func (r *Rows) Err() error {
	if r.prep == nil {
		return nil
	}
	return r.prep.bad.err(r.prep.noun)
}

// Store stores the rows in desk of st: the rows the desk does not hold yet are appended in
// one AppendBatch, all or nothing, and the others are checked against the stored rows by
// storage.MatchKey. See the package doc for the rules. Every row that breaks one is
// reported in one *RowsError, and nothing is written; a store's refusal of a row is a
// *RowError naming it. st may be nil when the rows are Faulty: they are then checked as
// against an empty desk. The rows are not modified.
func (r *Rows) Store(ctx context.Context, st Store, desk string, opts ...Option) (Counts, error) {
	return r.store(ctx, st, desk, optionsOf(opts))
}

func (r *Rows) store(ctx context.Context, st Store, desk string, o *options) (Counts, error) {
	prep := r.prep
	if o.ahead != nil {
		if prep == nil {
			prep = &importPrep{}
		}
		p := *prep
		p.ahead = o.ahead
		prep = &p
	}
	return storeRows(ctx, st, desk, r.rows, prep, o.progress)
}

// countingReader tells a Progress what is read through it.
type countingReader struct {
	r io.Reader
	p Progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.Advance(n)
	return n, err
}

// plural returns "1 message" or "3 messages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
