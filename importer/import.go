package importer

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sharedesk/transcript"
)

// Store is what an import needs of a store: sqlitestore.Store and pgstore.Store are both one.
type Store interface {
	// AppendBatch appends msgs to desk in order, all or nothing (transcript.BatchParent names
	// a parent earlier in the batch).
	AppendBatch(ctx context.Context, desk string, msgs []transcript.Message) error
	// LookupKeys returns the rows of desk holding keys, by key; a key the desk does not
	// hold is absent.
	LookupKeys(ctx context.Context, desk string, keys []string) (map[string]transcript.Message, error)
	// Log is desk's rows, newest first.
	Log(desk string) transcript.Log
}

// StoreCloser is a Store that the caller hands over, for ReadAhead to close.
type StoreCloser interface {
	Store
	io.Closer
}

// A Source is what an import reads: JSONLines, Slack or Discord.
type Source interface {
	read(o *options) (*Rows, error)
}

// JSONLines is the source of one message a line (the format export writes; see the
// package doc), read from r, of size bytes when known, else 0: the size lets the reader
// make room for every line at once. A byte-order mark at the start is skipped.
func JSONLines(r io.Reader, size int64) Source { return jsonLines{r, size} }

type jsonLines struct {
	r    io.Reader
	size int64
}

func (s jsonLines) read(o *options) (*Rows, error) {
	r := s.r
	if o.progress != nil {
		o.progress.Begin("reading", s.size)
		defer o.progress.End()
		r = &countingReader{r: r, p: o.progress}
	}
	rows, prep, err := readJSONLines(r, s.size)
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows, prep: prep}, nil
}

// Slack is the source of one channel of a Slack workspace export: path is the folder the
// export unpacks to or its .zip, channel its name (with or without "#") or its id.
func Slack(path, channel string) Source { return slackSource{path, channel} }

type slackSource struct{ path, channel string }

func (s slackSource) read(*options) (*Rows, error) {
	rows, err := readSlackExport(s.path, s.channel)
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows}, nil
}

// Discord is the source of a DiscordChatExporter JSON export of one channel: path is the
// file, or a folder or .zip holding it and its threads' files.
func Discord(path string) Source { return discordSource(path) }

type discordSource string

func (s discordSource) read(*options) (*Rows, error) {
	rows, err := readDiscordExport(string(s))
	if err != nil {
		return nil, err
	}
	return &Rows{rows: rows}, nil
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

// An Option changes how Import, Read and Rows.Store work.
type Option func(*options)

type options struct {
	progress Progress
	ahead    *ReadAhead
}

// WithProgress reports the import's stages to p.
func WithProgress(p Progress) Option { return func(o *options) { o.progress = p } }

// WithReadAhead has Rows.Store take what ra read of the desk (ra's store is the store
// given to Rows.Store), instead of reading it again.
func WithReadAhead(ra *ReadAhead) Option { return func(o *options) { o.ahead = ra } }

func optionsOf(opts []Option) *options {
	o := &options{}
	for _, opt := range opts {
		opt(o)
	}
	return o
}

// Counts is what an import did to a desk.
type Counts struct {
	Added   int // rows appended
	Present int // rows of the import the desk held already, identical, so not written
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
	return src.read(optionsOf(opts))
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
// transcript.MatchKey. See the package doc for the rules. Every row that breaks one is
// reported in one *RowsError, and nothing is written; a store's refusal of a row is a
// *RowError naming it. st may be nil when the rows are Faulty: they are then checked as
// against an empty desk. The rows are not modified; Store may be called again.
func (r *Rows) Store(ctx context.Context, st Store, desk string, opts ...Option) (Counts, error) {
	o := optionsOf(opts)
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

// ReadAhead is a desk's store opened, and the desk read whole, in the background, while an
// import reads its source: reading the source and the desk run on separate CPUs, and a
// re-import of a big file, which compares every line with its stored row, waits for
// neither alone. Make it with StartReadAhead, pass it to Rows.Store with WithReadAhead and
// its Store, and Close it.
type ReadAhead struct{ ra *readAhead }

// StartReadAhead opens a store with open and reads desk's head and, unless a source of
// size bytes cannot hold half as many messages as the desk has rows (Rows.Store then looks
// keys up instead), every row of the desk. It returns nil, reading nothing, for a size of
// 0 (unknown). A nil ReadAhead's methods do nothing.
func StartReadAhead(ctx context.Context, open func(context.Context) (StoreCloser, error), desk string, size int64) *ReadAhead {
	if size <= 0 {
		return nil
	}
	return &ReadAhead{startReadAhead(ctx, open, desk, size)}
}

// Store waits for the read and returns the store open opened, which ReadAhead's Close
// closes, or open's error or the read's.
func (ra *ReadAhead) Store() (Store, error) {
	if ra == nil {
		return nil, errors.New("importer: no read ahead")
	}
	return ra.ra.take()
}

// Close cancels the read if it still runs, waits for it and closes the store.
func (ra *ReadAhead) Close() {
	if ra != nil {
		ra.ra.stop()
	}
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
