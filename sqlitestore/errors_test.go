package sqlitestore_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/sqlitestore"
)

// TestAppendErrorNamesTheMessage: a refused message comes back as an *AppendError naming the
// desk and the batch index, matching transcript.ErrInvalidMessage.
func TestAppendErrorNamesTheMessage(t *testing.T) {
	st := openTemp(t)
	ok := transcript.Message{Author: transcript.Operator(), Content: "ok"}
	cases := []struct {
		name  string
		do    func() error
		desk  string
		index int
	}{
		{"Append", func() error {
			_, err := st.Append(t.Context(), "eng", transcript.Message{Author: transcript.Operator(), Content: "\xff"})
			return err
		}, "eng", -1},
		{"AppendBatch", func() error {
			return st.AppendBatch(t.Context(), "eng", []transcript.Message{ok, ok, {Parent: transcript.BatchParent(2), Author: transcript.Operator(), Content: "x"}})
		}, "eng", 2},
		{"AppendBatch, parent checked in the transaction", func() error {
			return st.AppendBatch(t.Context(), "ops", []transcript.Message{ok, {Parent: 3, Author: transcript.Operator(), Content: "x"}})
		}, "ops", 1},
		{"empty desk name", func() error { return st.AppendBatch(t.Context(), "", []transcript.Message{ok}) }, "", -1},
		{"At beyond year 9999", func() error {
			_, err := st.Append(t.Context(), "eng", transcript.Message{Author: transcript.Operator(), Content: "x", At: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)})
			return err
		}, "eng", -1},
	}
	for _, c := range cases {
		err := c.do()
		var appendErr *sqlitestore.AppendError
		if !errors.As(err, &appendErr) || !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s: error %v, want an *AppendError matching transcript.ErrInvalidMessage", c.name, err)
			continue
		}
		if appendErr.Desk != c.desk || appendErr.Index != c.index {
			t.Errorf("%s: AppendError{Desk: %q, Index: %d}, want {%q, %d}: %v", c.name, appendErr.Desk, appendErr.Index, c.desk, c.index, err)
		}
		t.Log(err)
	}
}

func TestOpenOptionsAndPath(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	for _, opt := range []sqlitestore.Option{sqlitestore.WithMaxContent(0), sqlitestore.WithMaxContent(transcript.MaxContent + 1), sqlitestore.WithBusyTimeout(-time.Second), sqlitestore.WithReaders(0), sqlitestore.WithWatchInterval(0)} {
		if _, err := sqlitestore.Open(ctx, filepath.Join(dir, "a.db"), opt); !errors.Is(err, sqlitestore.ErrOption) {
			t.Errorf("Open with an invalid option: %v, want ErrOption", err)
		}
	}
	for _, path := range []string{"", ":memory:", filepath.Join(dir, "missing", "dir", "x.db")} {
		if st, err := sqlitestore.Open(ctx, path); err == nil {
			st.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
		}
	}
	// A path with characters that mean something in a URI.
	st, err := sqlitestore.Open(ctx, filepath.Join(dir, "odd ?#&%=name.db"), sqlitestore.WithReaders(1), sqlitestore.WithBusyTimeout(0))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "hi"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "odd ?#&%=name.db")); err != nil {
		t.Errorf("the database is not at the path given: %v", err)
	}
}

func TestClosed(t *testing.T) {
	ctx := t.Context()
	st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "desk.db"))
	if err != nil {
		t.Fatal(err)
	}
	log := st.Log("eng")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "x"}); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Errorf("Append after Close: %v, want ErrClosed", err)
	}
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{{Author: transcript.Operator(), Content: "x"}}); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Errorf("AppendBatch after Close: %v, want ErrClosed", err)
	}
	if _, err := log.ReadBefore(ctx, 0, 1); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Errorf("ReadBefore after Close: %v, want ErrClosed", err)
	}
	if _, err := st.Desks(ctx); !errors.Is(err, sqlitestore.ErrClosed) {
		t.Errorf("Desks after Close: %v, want ErrClosed", err)
	}
}

// TestCanceledAppend: an append whose ctx is done stores nothing and says why.
func TestCanceledAppend(t *testing.T) {
	st := openTemp(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := st.Append(ctx, "eng", transcript.Message{Author: transcript.Operator(), Content: "x"}); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with a canceled ctx: %v, want context.Canceled", err)
	}
	if err := st.AppendBatch(ctx, "eng", []transcript.Message{{Author: transcript.Operator(), Content: "x"}}); !errors.Is(err, context.Canceled) {
		t.Errorf("AppendBatch with a canceled ctx: %v, want context.Canceled", err)
	}
	if _, err := st.Log("eng").ReadBefore(ctx, 0, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("ReadBefore with a canceled ctx: %v, want context.Canceled", err)
	}
	if desks, err := st.Desks(t.Context()); err != nil || len(desks) != 0 {
		t.Errorf("Desks = %q, %v; want none", desks, err)
	}
	if _, err := st.Log("eng").ReadBefore(t.Context(), 0, 0); !errors.Is(err, sqlitestore.ErrLimit) {
		t.Errorf("ReadBefore with limit 0: %v, want ErrLimit", err)
	}
}
