package console

import (
	"fmt"
	"io"
	"time"
)

// redrawEvery is how often a progress line is drawn again, at most.
const redrawEvery = 100 * time.Millisecond

// Progress draws one line of progress on w, a terminal's standard error, at most ten times a
// second; when On is false it draws nothing. It is an import's importer.Progress. Its
// methods are for one goroutine.
type Progress struct {
	W  io.Writer
	On bool // w is a terminal

	label string
	total int64 // bytes expected; 0: unknown
	read  int64
	last  time.Time
}

// Begin draws the stage's line at once.
func (p *Progress) Begin(label string, total int64) {
	p.label, p.total, p.read = label, total, 0
	p.draw(true)
}

// Advance counts n more bytes read, and draws the line when it is due.
func (p *Progress) Advance(n int) {
	p.read += int64(n)
	p.draw(false)
}

func (p *Progress) draw(force bool) {
	if !p.On || (!force && time.Since(p.last) < redrawEvery) {
		return
	}
	p.last = time.Now()
	if p.total <= 0 {
		fmt.Fprintf(p.W, "\r\x1b[K%s…", p.label)
		return
	}
	const width = 30
	frac := min(float64(p.read)/float64(p.total), 1)
	filled := int(frac * width)
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '-'
		if i < filled {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.W, "\r\x1b[K%s [%s] %3.0f%% of %.1f MB", p.label, bar, 100*frac, float64(p.total)/1e6)
}

// End clears the progress line.
func (p *Progress) End() {
	if p.On {
		fmt.Fprint(p.W, "\r\x1b[K")
	}
}

// IndexProgress returns a report of a rebuild of a store's search index (as
// sqlitestore.WithIndexProgress takes one) that writes to w: a line as the rebuild begins,
// naming where (the database, in words that hold no password) and its rows, and when on (w
// is a terminal) the rows done as it goes, at most ten times a second, the line cleared at
// the end. It is for one rebuild at a time.
func IndexProgress(w io.Writer, on bool, where string) func(done, total int64) {
	var last time.Time
	return func(done, total int64) {
		if last.IsZero() {
			fmt.Fprintf(w, "transcript: rebuilding the search index of %s (%d rows)\n", where, total)
		}
		if on && (time.Since(last) >= redrawEvery || done == total) {
			fmt.Fprintf(w, "\r\x1b[Kindexed %d of %d rows", done, total)
			if done == total {
				fmt.Fprint(w, "\r\x1b[K")
			}
		}
		last = time.Now()
	}
}
