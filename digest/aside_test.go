package digest_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/digest"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/sqlitestore"
)

// foldingLog is a log that folds: memlog's, or a SQLite store's desk.
type foldingLog interface {
	transcript.Log
	digest.Store
	Append(ctx context.Context, m transcript.Message) (transcript.Message, error)
}

// sqliteLog is a SQLite store's desk as a Log and a digest.Store.
type sqliteLog interface {
	transcript.Log
	digest.Store
}

// sqliteDesk is the desk "eng" of a SQLite store as a foldingLog.
type sqliteDesk struct {
	sqliteLog
	st *sqlitestore.Store
}

func (d sqliteDesk) Append(ctx context.Context, m transcript.Message) (transcript.Message, error) {
	return d.st.Append(ctx, "eng", m)
}

// TestAsideCorrectionKeepsDigest: a digest folds no aside, so an edit or a redaction
// of an aside (below the digest's through) must leave the digest an outsider reads as it
// was: else the outsider, seeing the channel's digest vanish (or fall back to an older
// generation) with no correction it may read, learns that an aside at or below the old
// through was corrected, which the correction rule promises it never learns.
func TestAsideCorrectionKeepsDigest(t *testing.T) {
	ctx := t.Context()
	logs := map[string]func(t *testing.T) foldingLog{
		"memlog": func(*testing.T) foldingLog { return memlog.New() },
		"sqlite": func(t *testing.T) foldingLog {
			st, err := sqlitestore.Open(ctx, filepath.Join(t.TempDir(), "desk.db"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return sqliteDesk{st.Log("eng").(sqliteLog), st}
		},
	}
	for name, open := range logs {
		for _, redact := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s redacted %v", name, redact), func(t *testing.T) {
				log := open(t)
				ana := transcript.Person("ana", "Ana")
				bob := transcript.Author{Kind: transcript.KindPerson, ID: "bob"}
				outsider := transcript.Author{Kind: transcript.KindAgent, ID: "bot"}
				add := func(m transcript.Message) transcript.Message {
					t.Helper()
					stored, err := log.Append(ctx, m)
					if err != nil {
						t.Fatal(err)
					}
					return stored
				}
				aside := add(transcript.Message{Author: ana, Content: "between us", Audience: []transcript.Author{bob}})
				for i := range 40 {
					add(transcript.Message{Author: ana, Content: fmt.Sprintf("root %d", i+1)})
				}
				c := transcript.Conversation{Desk: "eng"}
				if _, stored, err := digest.Fold(ctx, log, digest.Extractive{}, digest.Policy{KeepLive: 10, FoldAfter: 10}, c); err != nil || !stored {
					t.Fatalf("Fold: %v, %v", stored, err)
				}
				view := func() *transcript.Digest {
					p, err := transcript.Project(ctx, log, transcript.Query{Conversation: c, Viewer: outsider, Window: 10, Digest: true})
					if err != nil {
						t.Fatal(err)
					}
					return p.Digest
				}
				before := view()
				if before == nil || before.Through <= aside.Seq {
					t.Fatalf("the outsider's digest before: %+v", before)
				}
				corr := transcript.Message{Author: ana, Corrects: aside.Seq, Content: "between us, edited"}
				if redact {
					corr.Content, corr.Redacted = "", true
				}
				if stored := add(corr); !stored.IsAside() {
					t.Fatalf("the correction of an aside is no aside: %+v", stored)
				}
				after := view()
				if after == nil || after.Through != before.Through || after.Generation != before.Generation || after.Text != before.Text {
					t.Errorf("the outsider's digest changed after a correction of an aside it may not read: before through %d generation %d, after %s", before.Through, before.Generation, describeDigest(after))
				}
			})
		}
	}
}

// describeDigest names d by its through and generation, "none" for nil.
func describeDigest(d *transcript.Digest) string {
	if d == nil {
		return "none"
	}
	return fmt.Sprintf("through %d generation %d", d.Through, d.Generation)
}
