package posting_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/posting"
)

// TestCorrectionRefusals: each refusal of a correction is an *Error of its kind, worded
// without content and without an aside's readers, and a row the author may not read is
// refused as a missing one.
func TestCorrectionRefusals(t *testing.T) {
	ctx := context.Background()
	log := desk(t) // 1: the operator's root; 2: the operator's aside to triage
	tests := []struct {
		name   string
		author transcript.Author
		c      posting.Correction
		kind   posting.Kind
	}{
		{"a missing row", coder, posting.Correction{Target: 9, Content: "x"}, posting.NoTarget},
		{"an aside the author may not read", coder, posting.Correction{Target: 2, Redact: true}, posting.NoTarget},
		{"an edit by another", triage, posting.Correction{Target: 2, Content: "x"}, posting.NotAuthor},
		{"a redaction by another", triage, posting.Correction{Target: 1, Redact: true}, posting.NotAuthor},
		{"an edit without content", transcript.Operator(), posting.Correction{Target: 1, Content: " "}, posting.Blank},
		{"no target", coder, posting.Correction{Content: "x"}, posting.NoTarget},
		{"a target no row can have", coder, posting.Correction{Target: 1 << 63, Redact: true}, posting.NoTarget},
	}
	for _, tt := range tests {
		m, err := posting.PrepareCorrection(tt.author, tt.c)
		if err == nil {
			_, err = log.Append(ctx, m)
			err = posting.Refusal(m, err)
		}
		var pe *posting.Error
		if !errors.As(err, &pe) || pe.Kind != tt.kind {
			t.Errorf("%s: %v, want kind %d", tt.name, err, tt.kind)
			continue
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "triage") {
			t.Errorf("%s: the refusal tells of the aside: %v", tt.name, err)
		}
	}
	if log.Len() != 2 {
		t.Errorf("the refusals stored %d rows", log.Len()-2)
	}
	m, _ := posting.PrepareCorrection(transcript.Operator(), posting.Correction{Target: 2, Redact: true})
	if _, err := log.Append(ctx, m); err != nil {
		t.Fatal(err)
	}
	m, _ = posting.PrepareCorrection(transcript.Operator(), posting.Correction{Target: 2, Content: "again"})
	_, err := log.Append(ctx, m)
	if pe := (*posting.Error)(nil); !errors.As(posting.Refusal(m, err), &pe) || pe.Kind != posting.Redacted {
		t.Errorf("an edit of a redacted row = %v, want kind Redacted", posting.Refusal(m, err))
	}
}
