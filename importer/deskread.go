package importer

import (
	"context"
	"errors"
	"fmt"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/readable"
)

// This file holds how an import finds the rows a desk holds already: by key (LookupKeys),
// by reading them back through the desk's Log, or by reading the whole desk, in the
// background while the file is still being decoded (readAhead).

// findStored finds the desk's rows that the import's rows are, by key or by Seq, and the
// rows its parent keys name. An empty desk holds none. A desk read whole while the file was
// decoded (readAhead) has them all. Otherwise findStored looks the keys up (LookupKeys) and
// reads the rows named by Seq only back through the desk's Log; or, when the keys to look
// up are at least half as many as the desk's rows, it reads every row of the desk through
// its Log and picks the rows holding those keys: reading a row costs about half what looking
// up a key does (BENCHMARKS.md, "Command-line tool").
func (im *rowImporter) findStored(ctx context.Context) error {
	var err error
	switch {
	case im.ahead != nil:
		im.head = im.ahead.head
	case im.log == nil: // no database yet: an empty desk
	default:
		if im.head, err = readable.Head(ctx, im.log); err != nil {
			return err
		}
	}
	switch {
	case im.head == 0:
		return nil
	case im.ahead != nil && im.ahead.whole:
		im.stored = im.ahead.rows
	case uint64(len(im.keys.lookup)) < uint64(im.head/2):
		if len(im.keys.lookup) > 0 {
			if im.found, err = im.st.LookupKeys(ctx, im.desk, im.keys.lookup); err != nil {
				return err
			}
		}
		lo, hi := im.seqsToReadBack()
		im.stored, err = readDeskRows(ctx, im.log, im.desk, lo, hi)
		return err
	default:
		if im.stored, err = readDeskRows(ctx, im.log, im.desk, 1, im.head); err != nil {
			return err
		}
	}
	if len(im.keys.lookup) > 0 {
		im.pickKeys()
	}
	return nil
}

// pickKeys finds, among the desk's rows read whole, those holding the keys to look up.
func (im *rowImporter) pickKeys() {
	im.foundAt = make([]transcript.Sequence, len(im.rows))
	var parentKeys map[string]bool // the parent keys the import lacks: lookup's last
	if extra := im.keys.lookup[len(im.keys.byKey):]; len(extra) > 0 {
		parentKeys = make(map[string]bool, len(extra))
		for _, key := range extra {
			parentKeys[key] = true
		}
		im.deskKeys = make(map[string]transcript.Sequence, len(extra))
	}
	for _, m := range im.stored.rows {
		if m == nil || m.Key == "" {
			continue
		}
		if i, ok := im.keys.byKey[m.Key]; ok {
			im.foundAt[i] = m.Seq
		} else if parentKeys[m.Key] {
			im.deskKeys[m.Key] = m.Seq
		}
	}
}

// seqsToReadBack returns the lowest and highest Seq at or below the desk's head of the rows
// its keys did not find (0, 0 when none).
func (im *rowImporter) seqsToReadBack() (lo, hi transcript.Sequence) {
	for i := range im.rows {
		r := &im.rows[i]
		if r.Seq == 0 || r.Seq > im.head {
			continue
		}
		if _, ok := im.byKeyStored(i); ok {
			continue
		}
		if lo == 0 || r.Seq < lo {
			lo = r.Seq
		}
		hi = max(hi, r.Seq)
	}
	return lo, hi
}

// deskRow returns the desk's row seq, which exists (seq is at or below the head).
func (im *rowImporter) deskRow(ctx context.Context, seq transcript.Sequence) (transcript.Message, error) {
	if m, ok := im.stored.row(seq); ok {
		return m, nil
	}
	if m, ok := im.parents[seq]; ok {
		return m, nil
	}
	page, err := transcript.NewPager(im.log, seq+1).Next(ctx, 1)
	if err != nil {
		return transcript.Message{}, fmt.Errorf("reading row %d of desk %q: %w", seq, im.desk, err)
	}
	if len(page) == 0 || page[0].Seq != seq {
		return transcript.Message{}, fmt.Errorf("reading row %d of desk %q: %w", seq, im.desk, errNoRow)
	}
	if im.parents == nil {
		im.parents = make(map[transcript.Sequence]transcript.Message)
	}
	im.parents[seq] = page[0]
	return page[0], nil
}

// errNoRow reports a row the desk's head says exists and a read did not find.
var errNoRow = errors.New("the desk does not hold it")

// deskRows is a run of a desk's rows, by Seq, as its Log returned them.
type deskRows struct {
	from transcript.Sequence
	rows []*transcript.Message // rows[s-from] is row s; nil where the desk holds none
}

// readDeskRows reads the rows lo to hi of desk's log (none when lo is 0), from hi down, in
// pages, each checked by a transcript.Pager.
func readDeskRows(ctx context.Context, log transcript.Log, desk string, lo, hi transcript.Sequence) (deskRows, error) {
	if lo == 0 {
		return deskRows{}, nil
	}
	d := deskRows{from: lo, rows: make([]*transcript.Message, hi-lo+1)}
	p := transcript.NewPager(log, hi+1)
	for !p.Done() {
		page, err := p.Next(ctx, transcript.PageSize)
		if err != nil {
			return deskRows{}, fmt.Errorf("reading desk %q back: %w", desk, err)
		}
		for k := range page {
			m := &page[k] // d keeps the page alive; the page is the host's, and no one writes it
			if m.Seq < lo {
				return d, nil
			}
			d.rows[m.Seq-lo] = m
		}
	}
	return d, nil
}

// row returns row seq, if d holds it.
func (d deskRows) row(seq transcript.Sequence) (transcript.Message, bool) {
	if seq < d.from || seq-d.from >= transcript.Sequence(len(d.rows)) {
		return transcript.Message{}, false
	}
	if m := d.rows[seq-d.from]; m != nil {
		return *m, true
	}
	return transcript.Message{}, false
}

// minLineBytes is the shortest line an import can store, {"author":{"type":"operator"},"content":""}
// and its line break: a file of n bytes holds at most n/minLineBytes messages.
const minLineBytes = 45

// readAhead is a desk's store opened, and the desk read, while an import reads its source.
type readAhead struct {
	cancel context.CancelFunc
	done   chan struct{}
	st     StoreCloser         // the store opened; nil when opening failed
	head   transcript.Sequence // the desk's newest row when it was read
	rows   deskRows            // every row of the desk, when whole
	whole  bool
	err    error
}

// startReadAhead opens the store with open and reads desk's head and, unless a source of
// size bytes cannot hold half as many messages as the desk has rows (the import then looks
// keys up instead, see findStored), every row of the desk, in the background: reading the
// source and the desk run on separate CPUs, and a re-import of a big file, which compares
// every line with its stored row, waits for neither alone. The caller must call stop.
func startReadAhead(ctx context.Context, open func(context.Context) (StoreCloser, error), desk string, size int64) *readAhead {
	ctx, cancel := context.WithCancel(ctx)
	ra := &readAhead{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(ra.done)
		st, err := open(ctx)
		if err != nil { // st may be a typed nil
			ra.err = err
			return
		}
		ra.st = st
		log := ra.st.Log(desk)
		if ra.head, ra.err = readable.Head(ctx, log); ra.err != nil || ra.head == 0 {
			return
		}
		if uint64(size/minLineBytes) < uint64(ra.head/2) {
			return
		}
		ra.rows, ra.err = readDeskRows(ctx, log, desk, 1, ra.head)
		ra.whole = ra.err == nil
	}()
	return ra
}

// take waits for the read and returns its store, which stop closes.
func (ra *readAhead) take() (Store, error) {
	<-ra.done
	ra.cancel()
	if ra.err != nil {
		return nil, ra.err
	}
	return ra.st, nil
}

// stop cancels the read, waits for it and closes its store.
func (ra *readAhead) stop() {
	ra.cancel()
	<-ra.done
	if ra.st != nil {
		ra.st.Close()
		ra.st = nil
	}
}
