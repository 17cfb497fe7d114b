package main

import (
	"fmt"
	"io"
	"time"
)

// progress draws one line of progress on a terminal's stderr, at most ten times a second; on
// anything else it draws nothing.
type progress struct {
	e     *env
	label string
	total int64 // bytes expected; 0: unknown
	read  int64
	last  time.Time
}

func newProgress(e *env, label string, total int64) *progress {
	p := &progress{e: e, label: label, total: total}
	p.draw(true)
	return p
}

// reader returns r counting what is read through it.
func (p *progress) reader(r io.Reader) io.Reader { return &countingReader{r: r, p: p} }

func (p *progress) add(n int) {
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

// done clears the progress line.
func (p *progress) done() {
	if p.e.progress {
		fmt.Fprint(p.e.stderr, "\r\x1b[K")
	}
}

type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.add(n)
	return n, err
}
