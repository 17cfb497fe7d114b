package importer

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync"

	"github.com/sharedesk/transcript"
)

// blockLines is how many lines a block of decodeLines holds.
const blockLines = 1024

// decodedLine is one non-blank line of the input, decoded.
type decodedLine struct {
	n    int // the line's number, from 1
	size int // the line's bytes, its line break included
	l    line
	m    transcript.Message
	err  error
}

// lineBlock is a run of consecutive lines, decoded by one worker.
type lineBlock struct {
	text  []byte        // the lines' bytes, one after the other
	ends  []int         // where each line ends in text
	lines []decodedLine // numbered when cut, decoded by a worker
	ready chan struct{} // closed once lines are decoded
}

// decodeLines decodes the non-blank lines of r on every CPU and calls fn with each, in input
// order, from the calling goroutine. One goroutine cuts the input into blocks of lines, the
// workers decode blocks as they come, and fn sees a block once it is decoded and every block
// before it was seen: decoding is most of an import's reading, and it parallelizes line by
// line. It returns the number of lines read and the reader's error: bufio.ErrTooLong for a
// line over maxLine bytes (the next line's), or r's own.
func decodeLines(r io.Reader, fn func(d *decodedLine)) (int, error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	work := make(chan *lineBlock, 2*workers)
	ordered := make(chan *lineBlock, 4*workers) // bounds how far reading runs ahead
	var (
		read    int
		readErr error
	)
	go func() {
		defer close(ordered)
		defer close(work)
		read, readErr = cutBlocks(r, func(b *lineBlock) {
			ordered <- b
			work <- b
		})
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for b := range work {
				start := 0
				for i, end := range b.ends {
					d := &b.lines[i]
					d.l, d.m, d.err = decodeLine(b.text[start:end])
					start = end
				}
				b.text = nil // decoded values copy what they keep
				close(b.ready)
			}
		})
	}
	for b := range ordered {
		<-b.ready
		for i := range b.lines {
			fn(&b.lines[i])
		}
	}
	wg.Wait()
	return read, readErr // written before ordered was closed
}

// cutBlocks reads r's lines and hands each block of up to blockLines non-blank lines to
// emit. It returns the number of lines read and the scanner's error.
func cutBlocks(r io.Reader, emit func(*lineBlock)) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	var (
		b        *lineBlock
		lastText int // the bytes of the last block: the next is likely about as long
	)
	flush := func() {
		if b != nil {
			lastText = len(b.text)
			emit(b)
			b = nil
		}
	}
	n := 0
	for sc.Scan() {
		n++
		text := sc.Bytes()
		if len(bytes.TrimSpace(text)) == 0 {
			continue
		}
		if b == nil {
			b = &lineBlock{
				text:  make([]byte, 0, lastText+lastText/8),
				ends:  make([]int, 0, blockLines),
				lines: make([]decodedLine, 0, blockLines),
				ready: make(chan struct{}),
			}
		}
		b.text = append(b.text, text...)
		b.ends = append(b.ends, len(b.text))
		b.lines = append(b.lines, decodedLine{n: n, size: len(text) + 1})
		if len(b.ends) == blockLines {
			flush()
		}
	}
	flush()
	return n, sc.Err()
}
