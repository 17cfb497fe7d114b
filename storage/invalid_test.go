package storage_test

import (
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/storage"
)

func TestInvalidMessageKeepsTheCheck(t *testing.T) {
	err := storage.InvalidMessage(transcript.ValidateDesk(""))
	if !errors.Is(err, transcript.ErrInvalidMessage) || !errors.Is(err, transcript.ErrInvalidDesk) {
		t.Errorf("InvalidMessage(ValidateDesk(\"\")) = %v, want an error matching ErrInvalidMessage and ErrInvalidDesk", err)
	}
	if got, want := err.Error(), "invalid desk name: empty"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
