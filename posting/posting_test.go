package posting_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
	"github.com/sharedesk/transcript/posting"
	"github.com/sharedesk/transcript/storage"
)

var (
	coder  = transcript.Agent("coder", "Coder")
	triage = transcript.Agent("triage", "Triage")
)

// secret is the content of an aside to triage, which no refusal may quote.
const secret = "the aside's secret content"

// desk is a log with a desk root (1) and an aside to triage by the operator (2).
func desk(t *testing.T) *memlog.Log {
	t.Helper()
	log := memlog.New()
	for _, m := range []transcript.Message{
		{Author: transcript.Operator(), Content: "a root"},
		{Author: transcript.Operator(), Content: secret, Audience: []transcript.Author{triage}},
	} {
		if _, err := log.Append(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	return log
}

// TestPrepareRefusals: each refusal is an *Error of its kind, whose message names no
// content and no aside's reader, and stores nothing.
func TestPrepareRefusals(t *testing.T) {
	tests := []struct {
		name   string
		author transcript.Author
		req    posting.Request
		kind   posting.Kind
		reason string
	}{
		{"empty audience", coder, posting.Request{Content: "x", Audience: []posting.Entry{}}, posting.InvalidAudience, "names no reader"},
		{"bad entry", coder, posting.Request{Content: "x", Audience: []posting.Entry{{Author: triage}, {Err: errors.New("robot:r2")}}}, posting.InvalidEntry, "entry 1 is not a participant"},
		{"audience naming the author", coder, posting.Request{Content: "x", Audience: []posting.Entry{{Author: coder}}}, posting.InvalidAudience, "the author itself"},
		{"too large", coder, posting.Request{Content: strings.Repeat("x", transcript.MaxContent+1)}, posting.TooLarge, "over the limit"},
		{"NUL byte", coder, posting.Request{Content: "a\x00b"}, posting.InvalidMessage, "NUL byte"},
		{"key too long", coder, posting.Request{Content: "x", Key: strings.Repeat("k", transcript.MaxKeyLen+1)}, posting.InvalidMessage, "key of"},
		{"empty content", coder, posting.Request{}, posting.Blank, "the content is blank"},
		{"white space only", coder, posting.Request{Content: " \t\n\u3000 "}, posting.Blank, "the content is blank"},
		{"a blank reply", triage, posting.Request{Content: "  ", Parent: 2}, posting.Blank, "no view shows a blank message"},
		{"missing parent", coder, posting.Request{Content: "x", Parent: 9}, posting.NoParent, "no message 9"},
		{"unreadable parent", coder, posting.Request{Content: "x", Parent: 2}, posting.NoParent, "no message 2"},
		{"reply to an aside with other readers", triage, posting.Request{Content: "x", Parent: 2, Audience: []posting.Entry{{Author: coder}}}, posting.InvalidAudience, "keeps the aside's readers"},
	}
	log := desk(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := posting.Prepare(t.Context(), log, tt.author, tt.req)
			var refusal *posting.Error
			if !errors.As(err, &refusal) {
				t.Fatalf("Prepare = %v, want a *posting.Error", err)
			}
			if refusal.Kind != tt.kind || !strings.Contains(refusal.Reason, tt.reason) {
				t.Errorf("Prepare = kind %d, %q; want kind %d, saying %q", refusal.Kind, refusal.Reason, tt.kind, tt.reason)
			}
			if msg := err.Error(); strings.Contains(msg, secret) || tt.author != triage && strings.Contains(msg, "triage") {
				t.Errorf("the refusal %q quotes the aside or names its reader", msg)
			}
		})
	}
	if n := log.Len(); n != 2 {
		t.Errorf("the log holds %d rows after the refusals, want 2", n)
	}
}

// TestPrepareAllowBlank: a blank post that says it means it (AllowBlank) is prepared, and
// stored as it is.
func TestPrepareAllowBlank(t *testing.T) {
	log := desk(t)
	m, _, err := posting.Prepare(t.Context(), log, coder, posting.Request{Content: "  ", AllowBlank: true})
	if err != nil {
		t.Fatalf("Prepare of a blank post with AllowBlank = %v, want it prepared", err)
	}
	if stored, err := log.Append(t.Context(), m); err != nil || stored.Content != "  " {
		t.Fatalf("Append = %+v, %v; want the blank row stored", stored, err)
	}
}

// TestRefusalWordsOneTime: a store's refusal wrapped in the store's own error (which names its
// package and desk) is worded by its reason alone.
func TestRefusalWordsOneTime(t *testing.T) {
	log := desk(t)
	m, _ := posting.PrepareCorrection(transcript.Operator(), posting.Correction{Target: 1, Content: "fixed"})
	if _, err := log.Append(t.Context(), m); err != nil { // row 3 corrects row 1
		t.Fatal(err)
	}
	m, _ = posting.PrepareCorrection(transcript.Operator(), posting.Correction{Target: 3, Redact: true})
	_, err := log.Append(t.Context(), m)
	wrapped := fmt.Errorf("somestore: append to desk %q: %w", "eng", err)
	var refusal *posting.Error
	if !errors.As(posting.Refusal(m, wrapped), &refusal) {
		t.Fatalf("Refusal(%v) is no *posting.Error", wrapped)
	}
	if want := "message 3 is a correction of message 1: correct message 1 itself"; refusal.Reason != want {
		t.Errorf("Reason = %q, want %q", refusal.Reason, want)
	}
}

// TestPrepareReply: a reply to an aside by one of its readers gets the aside's readers, and
// Prepare returns the parent as stored.
func TestPrepareReply(t *testing.T) {
	log := desk(t)
	m, parent, err := posting.Prepare(t.Context(), log, triage, posting.Request{Content: "on it", Parent: 2, Key: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if parent == nil || parent.Seq != 2 || m.Author != triage || m.Parent != 2 || m.Key != "k" {
		t.Fatalf("Prepare = %+v, parent %+v; want triage's reply to row 2, keyed k", m, parent)
	}
	stored, err := log.Append(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	if len(stored.Audience) != 1 || !stored.Audience[0].Same(transcript.Operator()) {
		t.Errorf("the reply's audience is %v, want the aside's other reader, the operator", stored.Audience)
	}
}

// TestRefusal: a store's refusal is an *Error by its sentinel, worded here; a store's
// failure is no refusal, and stays as it is.
func TestRefusal(t *testing.T) {
	m := transcript.Message{Author: coder, Content: "x", Parent: 3, Key: "k1"}
	tests := []struct {
		err    error
		kind   posting.Kind
		reason string
	}{
		{&transcript.KeyConflictError{Key: "k1", Seq: 1}, posting.KeyConflict, `key "k1" already names a different row`},
		{storage.Invalidf(transcript.ErrTooLarge, "content of 20 bytes, over the limit of 16"), posting.TooLarge, "over the store's limit"},
		{storage.Invalidf(transcript.ErrNoParent, "parent 3 is not a row of the desk"), posting.NoParent, "no message 3"},
		{storage.Invalidf(transcript.ErrNotReadable, "%s", secret), posting.NoParent, "no message 3"},
		{storage.Invalidf(transcript.ErrInvalidAudience, "%s", secret), posting.InvalidAudience, "a reply to an aside keeps the aside's readers"},
		{storage.InvalidMessage(transcript.ValidateDesk("..")), posting.InvalidMessage, "the desk's name breaks the rule"},
		{storage.Invalidf(transcript.ErrText, "%s", secret), posting.InvalidMessage, "the store refused the message"},
	}
	for _, tt := range tests {
		err := posting.Refusal(m, tt.err)
		var refusal *posting.Error
		if !errors.As(err, &refusal) || refusal.Kind != tt.kind || !strings.Contains(refusal.Reason, tt.reason) || strings.Contains(err.Error(), secret) {
			t.Errorf("Refusal(%v) = %v, want kind %d saying %q, never the store's text", tt.err, err, tt.kind, tt.reason)
		}
		if !errors.Is(err, tt.err) {
			t.Errorf("Refusal(%v) = %v, which does not unwrap to the store's refusal", tt.err, err)
		}
	}
	for _, err := range []error{nil, errors.New("connection refused"), context.Canceled} {
		if got := posting.Refusal(m, err); got != err {
			t.Errorf("Refusal(%v) = %v, want the error itself: no refusal", err, got)
		}
	}
}
