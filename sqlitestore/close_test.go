package sqlitestore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sharedesk/transcript"
)

// TestCloseTruncatesTheLogBesideAWriter: the Store that made the file, closed while another
// Store on the file that has appended is still open, checkpoints the write-ahead log and
// truncates it, as any Store does, rather than giving up once the busy timeout is out (the
// connection that put the file in WAL mode could not).
func TestCloseTruncatesTheLogBesideAWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "desk.db")
	maker := openAt(t, path)
	other := openAt(t, path)
	if _, err := other.Append(t.Context(), "eng", transcript.Message{Author: transcript.Operator(), Content: "a row"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() == 0 {
		t.Fatalf("the write-ahead log after the other Store's append: %v, %v; want frames in it", fi, err)
	}
	if err := maker.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path + "-wal"); err != nil || fi.Size() != 0 {
		t.Fatalf("the write-ahead log after the Store that made the file closed: %v, %v; want it truncated", fi, err)
	}
}
