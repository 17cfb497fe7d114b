package storage_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

// TestValidateNewWithin: a store's lower limit refuses with ErrTooLarge, naming it; a limit
// above MaxContent is MaxContent.
func TestValidateNewWithin(t *testing.T) {
	m := transcript.Message{Author: transcript.Operator(), Content: strings.Repeat("x", 17)}
	if err := withinLimit(m, 16); !errors.Is(err, transcript.ErrTooLarge) || !strings.Contains(err.Error(), "17 bytes, over the limit of 16") {
		t.Errorf("ValidateNewWithin(17 bytes, 16) = %v, want ErrTooLarge naming both sizes", err)
	}
	if err := withinLimit(m, 17); err != nil {
		t.Errorf("ValidateNewWithin(17 bytes, 17) = %v", err)
	}
	m.Content = strings.Repeat("x", transcript.MaxContent+1)
	if err := withinLimit(m, 2*transcript.MaxContent); !errors.Is(err, transcript.ErrTooLarge) {
		t.Errorf("ValidateNewWithin over MaxContent with a higher limit = %v, want ErrTooLarge", err)
	}
}

// withinLimit checks m as a store whose content limit is limit bytes does (Batch.MaxContent).
func withinLimit(m transcript.Message, limit int) error {
	b := storage.Batch{Desk: "eng", Messages: []transcript.Message{m}, Single: true, MaxContent: limit}
	return b.Check()
}
