package storetest

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/desknames"
)

// badInput is one kind of input a store must refuse. msg builds the message from next, the
// Seq it would get if it were stored.
type badInput struct {
	name string
	desk string
	msg  func(next transcript.Sequence) transcript.Message
}

// The desks of checkBadInput: bad input is appended to badDesk, whose rows stay below those
// of otherDesk, so that a parent can exist in otherDesk and not in badDesk.
const (
	badDesk   = "eng"
	otherDesk = "other"
	freshDesk = "fresh" // never holds a row
	otherRows = 200
)

var badInputs = append(badDeskNames(), []badInput{
	{"author of unknown kind", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Author{Kind: 0, ID: "x"}, Content: "hi"}
	}},
	{"author of kind beyond system", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Author{Kind: transcript.KindSystem + 1, ID: "x"}, Content: "hi"}
	}},
	{"agent without id", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Agent("", "Nameless"), Content: "hi"}
	}},
	{"operator with id", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Author{Kind: transcript.KindOperator, ID: "op"}, Content: "hi"}
	}},
	{"parent newer than the new row", badDesk, func(next transcript.Sequence) transcript.Message { return reply(next+1, "hi") }},
	{"parent is the new row itself", badDesk, func(next transcript.Sequence) transcript.Message { return reply(next, "hi") }},
	{"parent only in another desk", badDesk, func(next transcript.Sequence) transcript.Message { return reply(next+3, "hi") }},
	{"parent in a desk without rows", freshDesk, func(next transcript.Sequence) transcript.Message { return reply(next, "hi") }},
	{"parent at the largest int64", badDesk, func(transcript.Sequence) transcript.Message { return reply(1<<63-1, "hi") }},
	{"parent at the largest sequence", badDesk, func(transcript.Sequence) transcript.Message { return reply(^transcript.Sequence(0), "hi") }},
	{"BatchParent naming no earlier message of a batch", badDesk, func(transcript.Sequence) transcript.Message {
		return reply(transcript.BatchParent(5), "hi") // outside a batch, or at index 0 or 2 of one
	}},
	{"content over the limit", badDesk, func(transcript.Sequence) transcript.Message {
		return root(strings.Repeat("x", transcript.MaxContent+1))
	}},
	{"content not UTF-8", badDesk, func(transcript.Sequence) transcript.Message { return root("caf\xe9") }},
	{"author id not UTF-8", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Agent("\xff", "x"), Content: "hi"}
	}},
	{"author label not UTF-8", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Agent("x", "\xfe"), Content: "hi"}
	}},
	// A NUL byte is valid UTF-8, but PostgreSQL text cannot hold one, and both stores refuse
	// it, so that any desk one store holds can move to the other.
	{"content with a NUL byte", badDesk, func(transcript.Sequence) transcript.Message { return root("nul \x00 inside") }},
	{"author id with a NUL byte", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Agent("a\x00b", "x"), Content: "hi"}
	}},
	{"author label with a NUL byte", badDesk, func(transcript.Sequence) transcript.Message {
		return transcript.Message{Author: transcript.Agent("x", "Tri\x00age"), Content: "hi"}
	}},
	{"seq set by the caller, the one it would get", badDesk, func(next transcript.Sequence) transcript.Message {
		m := root("hi")
		m.Seq = next
		return m
	}},
	{"seq set by the caller, an old one", badDesk, func(transcript.Sequence) transcript.Message {
		m := root("hi")
		m.Seq = 1
		return m
	}},
}...)

// badDeskNames are the bad inputs of a good message to each desk name desknames.Refused
// lists (empty, not UTF-8, a NUL byte, a slash, ".." among them), in a fixed order.
func badDeskNames() []badInput {
	var ins []badInput
	for _, what := range slices.Sorted(maps.Keys(desknames.Refused)) {
		ins = append(ins, badInput{"desk name " + what, desknames.Refused[what], func(transcript.Sequence) transcript.Message { return root("hi") }})
	}
	return ins
}

// badModes are the ways checkBadInput feeds a bad message to a store.
var badModes = []struct {
	name   string
	index  int // the bad message's position in the batch
	append func(t *testing.T, st Store, desk string, m transcript.Message) error
}{
	{"Append", 0, func(t *testing.T, st Store, desk string, m transcript.Message) error {
		got, err := st.Append(t.Context(), desk, m)
		if err != nil && !reflect.DeepEqual(got, transcript.Message{}) {
			t.Errorf("Append failed but returned a row: %+v", got)
		}
		return err
	}},
	{"AppendBatch of one", 0, func(t *testing.T, st Store, desk string, m transcript.Message) error {
		return st.AppendBatch(t.Context(), desk, []transcript.Message{m})
	}},
	{"AppendBatch, last of three", 2, func(t *testing.T, st Store, desk string, m transcript.Message) error {
		return st.AppendBatch(t.Context(), desk, []transcript.Message{root("ok 1"), reply(transcript.BatchParent(0), "ok 2"), m})
	}},
	{"AppendBatch, first of three", 0, func(t *testing.T, st Store, desk string, m transcript.Message) error {
		return st.AppendBatch(t.Context(), desk, []transcript.Message{m, root("ok 1"), root("ok 2")})
	}},
}

// checkBadInput: every kind of bad input is refused with transcript.ErrInvalidMessage and
// stores nothing; the next good append gets the next consecutive Seq.
func checkBadInput(t *testing.T, st Store) {
	var others []transcript.Message
	for i := range otherRows {
		others = append(others, root(fmt.Sprintf("other %d", i+1)))
	}
	if err := st.AppendBatch(t.Context(), otherDesk, others); err != nil {
		t.Fatalf("AppendBatch of %d rows: %v", otherRows, err)
	}
	mustAppend(t, st, badDesk, root("first"), 1)
	wantDesks := []string{badDesk, otherDesk}
	for _, mode := range badModes {
		for _, in := range badInputs {
			t.Run(mode.name+"/"+in.name, func(t *testing.T) {
				h := head(t, st, badDesk)
				if h+6 >= otherRows {
					t.Fatalf("desk %q grew to %d rows, too close to %q's %d", badDesk, h, otherDesk, otherRows)
				}
				next := transcript.Sequence(mode.index + 1)
				if in.desk == badDesk {
					next += h
				}
				m := in.msg(next)
				err := mode.append(t, st, in.desk, m)
				switch {
				case err == nil:
					t.Errorf("%s to desk %q of a message with %s: no error, want one matching transcript.ErrInvalidMessage", mode.name, in.desk, in.name)
				case !errors.Is(err, transcript.ErrInvalidMessage):
					t.Errorf("%s to desk %q of a message with %s: error %q does not match transcript.ErrInvalidMessage", mode.name, in.desk, in.name, err)
				case strings.HasPrefix(in.name, "parent ") && !errors.Is(err, transcript.ErrNoParent):
					t.Errorf("%s to desk %q of a message with %s: error %q does not match transcript.ErrNoParent", mode.name, in.desk, in.name, err)
				case strings.HasPrefix(in.name, "desk name ") && !errors.Is(err, transcript.ErrInvalidDesk):
					t.Errorf("%s to desk %q: error %q does not match transcript.ErrInvalidDesk", mode.name, in.desk, err)
				case !strings.Contains(err.Error(), ": "):
					t.Errorf("error %q does not say what is wrong", err)
				}
				if got := head(t, st, badDesk); got != h {
					t.Errorf("after the failed %s, desk %q has head %d, want %d: something was stored", mode.name, badDesk, got, h)
				}
				if got := head(t, st, otherDesk); got != otherRows {
					t.Errorf("after the failed %s, desk %q has head %d, want %d", mode.name, otherDesk, got, otherRows)
				}
				if got := mustDesks(t, st); !slices.Equal(got, wantDesks) {
					t.Errorf("after the failed %s, Desks = %q, want %q", mode.name, got, wantDesks)
				}
				mustAppend(t, st, badDesk, reply(h, "the next row after "+in.name), h+1)
			})
		}
	}
	rows := mustReadAll(t, st, badDesk)
	for i, m := range rows {
		if m.Seq != transcript.Sequence(i+1) {
			t.Fatalf("desk %q: row %d has seq %d, want consecutive sequences from 1", badDesk, i, m.Seq)
		}
		if i > 0 && (m.Parent != m.Seq-1 || !strings.HasPrefix(m.Content, "the next row after ")) {
			t.Errorf("desk %q: row %+v is not one of the good appends", badDesk, m)
		}
	}
}
