package sqlitestore_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
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

// TestReadOnlyLastToCloseLeavesNoErasedText: a redaction committed while another process
// read the file leaves the erased text in the write-ahead log when its writer closes (its
// checkpoint cannot wait for the read); a read-only Store (the command's view, search or
// export) that then closes last copies the log in and removes it, as a Store that may
// write would, so no file of the database holds the text.
func TestReadOnlyLastToCloseLeavesNoErasedText(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "desk.db")
	const secret = "erasedword9c1e7f3a"
	w, err := sqlitestore.Open(ctx, path, sqlitestore.WithBusyTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ana := transcript.Person("ana", "Ana")
	m, err := w.Append(ctx, "eng", transcript.Message{Author: ana, Content: "password " + secret})
	if err != nil {
		t.Fatal(err)
	}
	r, err := sqlitestore.Open(ctx, path, sqlitestore.ReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Log("eng").ReadBefore(ctx, 0, 10); err != nil {
		t.Fatal(err)
	}
	reader, err := sql.Open("sqlite", "file:"+path+"?mode=ro") // another process's read in flight
	if err != nil {
		t.Fatal(err)
	}
	tx, err := reader.Begin()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Append(ctx, "eng", transcript.Message{Author: ana, Corrects: m.Seq, Redacted: true}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if files := filesHolding(t, dir, secret); len(files) == 0 {
		t.Fatal("no file held the erased text after the writer closed beside a read: the test shows nothing")
	}
	tx.Rollback()
	reader.Close()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if files := filesHolding(t, dir, secret); len(files) > 0 {
		t.Errorf("after every Store closed, %v still hold the erased text", files)
	}
	if _, err := os.Lstat(path + "-wal"); err == nil {
		t.Error("the write-ahead log is still there")
	}
}
