package transcript_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/memlog"
)

// TestCorrectionRule: every point of the rule, in its order, with its sentinel; a refusal
// quotes nothing of the target.
func TestCorrectionRule(t *testing.T) {
	op, ana, bot, rev := transcript.Operator(), transcript.Person("ana", "Ana"), transcript.Agent("bot", "Bot"), transcript.Agent("rev", "Rev")
	desk := &transcript.Message{Seq: 1, Author: ana, Content: "deploy at 22:00"}
	aside := &transcript.Message{Seq: 2, Author: bot, Content: "secret plan", Audience: []transcript.Author{op}}
	blank := &transcript.Message{Seq: 3, Author: ana, Content: "  "}
	edit := &transcript.Message{Seq: 4, Author: ana, Content: "deploy at 23:00", Corrects: 1}
	erased := &transcript.Message{Seq: 5, Author: ana, Redacted: true, Revised: 6}
	tests := []struct {
		name   string
		m      transcript.Message
		target *transcript.Message
		want   error
	}{
		{"a missing row", transcript.Message{Author: ana, Content: "x", Corrects: 9}, nil, transcript.ErrNotReadable},
		{"an aside its corrector may not read", transcript.Message{Author: rev, Redacted: true, Corrects: 2}, aside, transcript.ErrNotReadable},
		{"a correction", transcript.Message{Author: ana, Content: "x", Corrects: 4}, edit, transcript.ErrInvalidMessage},
		{"a blank row", transcript.Message{Author: ana, Content: "x", Corrects: 3}, blank, transcript.ErrInvalidMessage},
		{"a redacted row", transcript.Message{Author: ana, Content: "x", Corrects: 5}, erased, transcript.ErrRedacted},
		{"an edit by another", transcript.Message{Author: op, Content: "x", Corrects: 1}, desk, transcript.ErrNotAuthor},
		{"a redaction by another agent", transcript.Message{Author: bot, Redacted: true, Corrects: 1}, desk, transcript.ErrNotAuthor},
		{"an audience on a desk row's correction", transcript.Message{Author: ana, Content: "x", Corrects: 1, Audience: []transcript.Author{bot}}, desk, transcript.ErrInvalidAudience},
		{"another audience on an aside's", transcript.Message{Author: bot, Content: "x", Corrects: 2, Audience: []transcript.Author{rev}}, aside, transcript.ErrInvalidAudience},
	}
	for _, tt := range tests {
		if err := tt.m.ValidateNew(); err != nil {
			t.Fatalf("%s: ValidateNew = %v", tt.name, err)
		}
		_, err := tt.m.ResolveCorrection(tt.target)
		if !errors.Is(err, tt.want) || !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), "secret") || strings.Contains(err.Error(), "22:00")) {
			t.Errorf("%s: the refusal quotes the target: %v", tt.name, err)
		}
	}
	got, err := transcript.Message{Author: op, Redacted: true, Corrects: 2}.ResolveCorrection(aside)
	if err != nil || len(got) != 1 || !got[0].Same(bot) {
		t.Errorf("the operator's redaction of an aside = %v, %v; want the audience [agent:bot]", got, err)
	}
	if _, err := (transcript.Message{Author: op, Redacted: true, Corrects: 1}).ResolveCorrection(desk); err != nil {
		t.Errorf("the operator's redaction of a desk row = %v", err)
	}
}

// TestValidateNewCorrections: what a writer may not say of a correction.
func TestValidateNewCorrections(t *testing.T) {
	ana := transcript.Person("ana", "Ana")
	for name, m := range map[string]transcript.Message{
		"revised":               {Author: ana, Content: "x", Revised: 2},
		"redacted, no target":   {Author: ana, Redacted: true},
		"redacted with content": {Author: ana, Content: "x", Redacted: true, Corrects: 1},
		"an edit without text":  {Author: ana, Content: " ", Corrects: 1},
		"a correction replying": {Author: ana, Content: "x", Corrects: 1, Parent: 1},
	} {
		if err := m.ValidateNew(); !errors.Is(err, transcript.ErrInvalidMessage) {
			t.Errorf("%s: ValidateNew = %v", name, err)
		}
	}
}

// TestMemlogCorrections: an edit and a redaction are applied at once; a redaction erases
// the earlier corrections; a retry after a redaction replays; no row replies to a
// correction.
func TestMemlogCorrections(t *testing.T) {
	ctx := context.Background()
	ana := transcript.Person("ana", "Ana")
	log := memlog.New()
	must := func(m transcript.Message) transcript.Message {
		t.Helper()
		stored, err := log.Append(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		return stored
	}
	must(transcript.Message{Author: ana, Content: "deploy at 22:00"})
	edit := must(transcript.Message{Author: ana, Content: "deploy at 23:00", Corrects: 1, Key: "e"})
	if rows := log.Messages(); rows[0].Content != "deploy at 23:00" || rows[0].Revised != edit.Seq {
		t.Fatalf("after the edit: %+v", rows[0])
	}
	if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: "re", Parent: edit.Seq}); !errors.Is(err, transcript.ErrInvalidMessage) {
		t.Errorf("a reply to a correction = %v", err)
	}
	red := must(transcript.Message{Author: transcript.Operator(), Redacted: true, Corrects: 1})
	rows := log.Messages()
	if rows[0].Content != "" || !rows[0].Redacted || rows[0].Revised != red.Seq || rows[1].Content != "" || !rows[1].Redacted {
		t.Fatalf("after the redaction: %+v", rows)
	}
	again, fresh, err := log.AppendNew(ctx, transcript.Message{Author: ana, Content: "deploy at 23:00", Corrects: 1, Key: "e"})
	if err != nil || fresh || again.Seq != edit.Seq || again.Content != "" {
		t.Errorf("the retry of the edit = %+v, %v, %v; want the erased row %d again", again, fresh, err, edit.Seq)
	}
	if _, err := log.Append(ctx, transcript.Message{Author: ana, Content: "x", Corrects: 1}); !errors.Is(err, transcript.ErrRedacted) {
		t.Errorf("an edit after the redaction = %v", err)
	}
}

// TestViewOfCorrections: a correction is never a message of a view; a redacted row keeps
// its place, its first reply stays its first reply.
func TestViewOfCorrections(t *testing.T) {
	ctx := context.Background()
	ana, bot := transcript.Person("ana", "Ana"), transcript.Agent("bot", "Bot")
	log := memlog.New()
	for _, m := range []transcript.Message{
		{Author: ana, Content: "deploy at 22:00"},
		{Author: bot, Content: "ok", Parent: 1},
		{Author: bot, Content: "ok, 22:00", Corrects: 2},
		{Author: ana, Redacted: true, Corrects: 1},
	} {
		if _, err := log.Append(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, thread := range []transcript.Sequence{0, 1} {
		p, err := transcript.Project(ctx, log, transcript.Query{Conversation: transcript.Conversation{Thread: thread}, Viewer: bot})
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Messages) != 2 || p.Messages[0].Seq != 1 || !p.Messages[0].Redacted || p.Messages[0].Content != "" ||
			p.Messages[1].Content != "ok, 22:00" || p.Messages[1].Revised != 3 || p.Head != 4 {
			t.Errorf("thread %d: %+v", thread, p)
		}
	}
}
