package fanout

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// unwrapper wraps a ResponseWriter as the server's middleware does, with no deadline of its own.
type unwrapper struct{ http.ResponseWriter }

func (u unwrapper) Unwrap() http.ResponseWriter { return u.ResponseWriter }

// TestSSEWriterDeadline: each flush sets a fresh write deadline, timeout away, on the writer
// http.ResponseController reaches through the wrappers, every time; a writer none of
// whose wrappers has a deadline flushes without one.
func TestSSEWriterDeadline(t *testing.T) {
	rec := &deadlineRecorder{ResponseRecorder: httptest.NewRecorder()}
	out := NewSSEWriter(unwrapper{unwrapper{rec}}, time.Hour)
	for i := range 2 {
		before := time.Now()
		out.Comment("x")
		if err := out.Flush(); err != nil {
			t.Fatal(err)
		}
		d, ok := rec.last()
		if n := len(rec.deadlines); !ok || n != i+1 || d.Before(before.Add(time.Hour)) {
			t.Fatalf("flush %d: %d deadlines, the last %v, want %d, the last an hour after %v", i, n, d, i+1, before)
		}
	}
	plain := httptest.NewRecorder()
	out = NewSSEWriter(unwrapper{plain}, time.Hour)
	out.Comment("x")
	if err := out.Flush(); err != nil || plain.Body.String() != ": x\n\n" || !plain.Flushed {
		t.Fatalf("without a deadline: %v, body %q, flushed %v", err, plain.Body.String(), plain.Flushed)
	}
}
