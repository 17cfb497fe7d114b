package storage_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// TestCheckDigest: a digest a fold could make passes; each field at fault is refused with
// ErrInvalidDigest, text faults with transcript.ErrText too, and no error quotes the text.
func TestCheckDigest(t *testing.T) {
	const secret = "qzvxkwsecret"
	good := transcript.Digest{Conversation: transcript.Conversation{Desk: "eng", Thread: 4}, Through: 9, Rows: 3, Generation: 2, Digester: "extractive", Text: "ana: " + secret}
	if err := storage.CheckDigest("eng", good, 9); err != nil {
		t.Fatalf("CheckDigest of a good digest: %v", err)
	}
	for _, c := range []struct {
		what string
		edit func(d *transcript.Digest)
		read transcript.Sequence
		text bool
	}{
		{"another desk", func(d *transcript.Digest) { d.Conversation.Desk = "ops" }, 9, false},
		{"generation 0", func(d *transcript.Digest) { d.Generation = 0 }, 9, false},
		{"through 0", func(d *transcript.Digest) { d.Through = 0 }, 9, false},
		{"through beyond the read", func(d *transcript.Digest) {}, 8, false},
		{"a read no store holds", func(d *transcript.Digest) {}, math.MaxInt64 + 1, false},
		{"through at the thread's root", func(d *transcript.Digest) { d.Through = 4 }, 9, false},
		{"rows -1", func(d *transcript.Digest) { d.Rows = -1 }, 9, false},
		{"a NUL byte", func(d *transcript.Digest) { d.Text += "\x00" }, 9, true},
		{"text not UTF-8", func(d *transcript.Digest) { d.Text += "\xff" }, 9, true},
		{"a digester not UTF-8", func(d *transcript.Digest) { d.Digester = "\xff" }, 9, true},
	} {
		d := good
		c.edit(&d)
		err := storage.CheckDigest("eng", d, c.read)
		switch {
		case !errors.Is(err, storage.ErrInvalidDigest):
			t.Errorf("%s: %v, want an error matching ErrInvalidDigest", c.what, err)
		case c.text != errors.Is(err, transcript.ErrText):
			t.Errorf("%s: %v, matching transcript.ErrText: %v, want %v", c.what, err, !c.text, c.text)
		case strings.Contains(err.Error(), secret):
			t.Errorf("%s: the error quotes the text: %v", c.what, err)
		}
	}
}
