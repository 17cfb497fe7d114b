package pgtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/sharedesk/transcript"
)

// ErasureConf are the settings under which pgstore's Compact leaves no erased content in a
// server's data directory, as pgstore's documentation names them, for Configure: with
// full_page_writes on, as on a server that keeps its data, and neither a timed checkpoint
// nor one that WAL's size starts, so that only a test's own checkpoints remove WAL.
const ErasureConf = `
wal_recycle = off
wal_keep_size = 0
archive_mode = off
full_page_writes = on
wal_compression = off
checkpoint_timeout = '1d'
max_wal_size = '4GB'
`

// DataDir is the server's data directory: its tables' files, pg_wal and the rest.
func (s *Server) DataDir() string { return s.data }

// Configure adds lines to the server's postgresql.conf and restarts it (a fast shutdown,
// then a start), so that settings only a start reads (archive_mode, wal_level) apply too.
// Every session is cut.
func (s *Server) Configure(lines string) error {
	if err := appendConf(s.data, lines); err != nil {
		return err
	}
	if err := s.Exec("pg_ctl", "-D", s.data, "-m", "fast", "-w", "-t", "60", "stop"); err != nil {
		return err
	}
	return s.Start()
}

// FilesHolding reads every regular file under dir, at any depth, and returns for each of
// words the files (their paths relative to dir) that hold its bytes anywhere: a word no
// file holds has no entry. A file that vanishes while it is walked (a WAL segment removed
// by a checkpoint) is skipped; any other error is returned.
func FilesHolding(dir string, words []string) (map[string][]string, error) {
	found := make(map[string][]string)
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		for _, w := range words {
			if bytes.Contains(data, []byte(w)) {
				found[w] = append(found[w], rel)
			}
		}
		return nil
	})
	return found, err
}

// ErasedWords is a desk written by WriteErasedWords: the words its redactions erased and
// the words its live rows hold, each in exactly one row.
type ErasedWords struct {
	Erased, Live []string
}

// WriteErasedWords appends rows to desk through app, each holding a word of its own ("zr"
// and four digits, then "q": no word is part of another), one in ten of them long, with
// the word among 6,000 random letters that PostgreSQL stores in TOAST, uncompressed (so a
// byte scan of its files finds the word as long as it is there); it edits some rows,
// giving each a word of its own too; then it calls between, when not nil, and redacts, as
// the operator, a third of the rows, edited ones among them. It returns the erased words
// (a redacted row's, and its edit's) and the live ones (a row's that is not redacted, or
// its edit's new word).
func WriteErasedWords(tb testing.TB, app transcript.Appender, desk string, rows int, between func()) ErasedWords {
	tb.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	var w ErasedWords
	var redact []transcript.Sequence
	for i := range rows {
		word := fmt.Sprintf("zr%04dq", i)
		content := "a row that holds " + word
		if i%10 == 0 {
			letters := make([]byte, 6000)
			for j := range letters {
				letters[j] = byte('a' + rng.IntN(26))
			}
			content = string(letters[:3000]) + " " + word + " " + string(letters[3000:])
		}
		m, err := app.Append(ctx, desk, transcript.Message{Author: transcript.Person("alice", "Alice"), Content: content})
		if err != nil {
			tb.Fatal(err)
		}
		words := []string{word}
		if i%4 == 1 { // an edit: the row's new word; the old one is left unasserted
			words = []string{fmt.Sprintf("ze%04dq", i)}
			if _, err := app.Append(ctx, desk, transcript.Message{Author: m.Author, Corrects: m.Seq, Content: "now it holds " + words[0]}); err != nil {
				tb.Fatal(err)
			}
			if i%3 == 0 {
				words = append(words, word)
			}
		}
		if i%3 != 0 {
			w.Live = append(w.Live, words...)
			continue
		}
		redact = append(redact, m.Seq)
		w.Erased = append(w.Erased, words...)
	}
	if between != nil {
		between()
	}
	for _, seq := range redact {
		if _, err := app.Append(ctx, desk, transcript.Message{Author: transcript.Operator(), Corrects: seq, Redacted: true}); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}
