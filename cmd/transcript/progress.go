package main

import (
	"fmt"
	"time"

	"github.com/sharedesk/transcript/importer"
)

// progress draws one line of progress on a terminal's stderr, at most ten times a second; on
// anything else it draws nothing. It is an import's importer.Progress.
type progress struct {
	e     *env
	label string
	total int64 // bytes expected; 0: unknown
	read  int64
	last  time.Time
}

var _ importer.Progress = (*progress)(nil)

func newProgress(e *env) *progress { return &progress{e: e} }

// Begin draws the stage's line at once.
func (p *progress) Begin(label string, total int64) {
	p.label, p.total, p.read = label, total, 0
	p.draw(true)
}

func (p *progress) Advance(n int) {
	p.read += int64(n)
	p.draw(false)
}

func (p *progress) draw(force bool) {
	if !p.e.progress || (!force && time.Since(p.last) < 100*time.Millisecond) {
		return
	}
	p.last = time.Now()
	if p.total <= 0 {
		fmt.Fprintf(p.e.stderr, "\r\x1b[K%s…", p.label)
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
	fmt.Fprintf(p.e.stderr, "\r\x1b[K%s [%s] %3.0f%% of %.1f MB", p.label, bar, 100*frac, float64(p.total)/1e6)
}

// End clears the progress line.
func (p *progress) End() {
	if p.e.progress {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
	}
}
