package fanout

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/sharedesk/transcript"
)

// SSEWriter writes Server-Sent Events. Events are gathered in a buffer and sent whole,
// with one Write and a flush, each under a fresh write deadline, so that a stream that
// ends — the client gone, the server draining — never leaves an event half-written by the
// server, and a client that stops reading is let go after the deadline rather than held.
// The buffer holds a small batch (sseBatchBytes), or one event larger than that: a caller
// adds events and flushes once the buffer holds that much (stream.writePart).
//
// It is written here rather than taken from huma's sse package, which names no event
// "message" on the wire (a row's event is event: message), has no comment lines for
// heartbeats, takes int ids where sequences are uint64, and writes each field with its own
// Write and reports to os.Stderr. The OpenAPI document still describes the stream
// (eventsOperation).
type SSEWriter struct {
	w       io.Writer
	rc      *http.ResponseController
	timeout time.Duration
	buf     bytes.Buffer
	// deadline is the SetWriteDeadline of w or of a writer it wraps, the one
	// http.ResponseController would call, found once; nil when none has one.
	deadline func(time.Time) error
}

// sseBatchBytes is how much a stream gathers before it sends: events smaller than that
// share a Write, a larger one goes alone, and the buffer's memory is let go after it.
const sseBatchBytes = 64 << 10

// NewSSEWriter returns a writer of w's events, each write under a deadline timeout away.
func NewSSEWriter(w http.ResponseWriter, timeout time.Duration) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w), timeout: timeout, deadline: writeDeadline(w)}
}

// writeDeadline returns the SetWriteDeadline http.ResponseController finds for w: w's own,
// else that of the writer w unwraps to, and so on; nil when none has one. A writer's
// wrappers wrap the same writer for as long as it serves its response, so one search
// stands for every deadline the stream sets.
func writeDeadline(w http.ResponseWriter) func(time.Time) error {
	for {
		switch t := w.(type) {
		case interface{ SetWriteDeadline(time.Time) error }:
			return t.SetWriteDeadline
		case interface{ Unwrap() http.ResponseWriter }:
			w = t.Unwrap()
		default:
			return nil
		}
	}
}

// Event adds an event named name with id and data, as JSON on one line (JSON never holds
// a raw newline), to what the next flush sends; on error the buffer is as it was.
func (s *SSEWriter) Event(name string, id transcript.Sequence, data any) error {
	before := s.buf.Len()
	s.buf.WriteString("event: ")
	s.buf.WriteString(name)
	if id != 0 {
		s.buf.WriteString("\nid: ")
		s.buf.Write(strconv.AppendUint(s.buf.AvailableBuffer(), uint64(id), 10))
	}
	s.buf.WriteString("\ndata: ")
	if err := json.NewEncoder(&s.buf).Encode(data); err != nil { // the JSON and a newline
		s.buf.Truncate(before)
		return err
	}
	s.buf.WriteString("\n")
	return nil
}

// buffered returns how many bytes were added since the last flush.
func (s *SSEWriter) buffered() int { return s.buf.Len() }

// truncate drops what was added since the buffer held n bytes.
func (s *SSEWriter) truncate(n int) { s.buf.Truncate(n) }

// Comment adds a comment line, which clients ignore: a heartbeat that keeps proxies and
// the client's idea of the connection alive.
func (s *SSEWriter) Comment(text string) {
	s.buf.WriteString(": ")
	s.buf.WriteString(text)
	s.buf.WriteString("\n\n")
}

// sseChunkBytes is the most a stream hands the connection between two of writePart's
// checks for a redaction: where a connection's write cannot be cut short (PartWriter), what
// a redaction waits for before it is answered.
const sseChunkBytes = 16 << 10

// Flush sends what was added, in one write under a fresh deadline, and flushes it to the
// client.
func (s *SSEWriter) Flush() error {
	if err := s.setDeadline(); err != nil {
		return err
	}
	_, err := s.flushWhile(nil)
	return err
}

// setDeadline gives the writes of the next flushWhile a fresh deadline.
func (s *SSEWriter) setDeadline() error {
	if s.deadline == nil {
		return nil // as http.ErrNotSupported: no writer has a deadline to set
	}
	if err := s.deadline(time.Now().Add(s.timeout)); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return err
	}
	return nil
}

// flushWhile sends what was added, as flush does but under the deadline setDeadline set, in
// writes of at most sseChunkBytes, asking keep (when not nil) before each whether to go on.
// When keep says no it stops: the rest is dropped unsent, nothing is flushed, and it
// reports false. A client then holds part of an event, which it never dispatches, and
// resumes from the last whole one.
func (s *SSEWriter) flushWhile(keep func() bool) (bool, error) {
	b := s.buf.Bytes()
	s.buf.Reset()
	for len(b) > 0 {
		if keep != nil && !keep() {
			s.release()
			return false, nil
		}
		n := len(b)
		if keep != nil {
			n = min(n, sseChunkBytes)
		}
		if _, err := s.w.Write(b[:n]); err != nil {
			s.release()
			return false, err
		}
		b = b[n:]
	}
	s.release()
	return true, s.rc.Flush()
}

// release lets a large event's room go back to the heap once it is sent.
func (s *SSEWriter) release() {
	if s.buf.Cap() > 2*sseBatchBytes {
		s.buf = bytes.Buffer{}
	}
}
