package stream

import (
	"errors"
	"testing"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/server/internal/op"
)

// TestResumeFrom: Last-Event-ID, when sent, is the watermark, over after=; else after=, 0
// included; else none (the desk's head); a Last-Event-ID that is no sequence is the
// service's 400.
func TestResumeFrom(t *testing.T) {
	errInvalid := errors.New("invalid")
	s := &Streams{Service: op.Service{Invalid: func(string) error { return errInvalid }}}
	seq := func(n transcript.Sequence) *transcript.Sequence { return &n }
	for _, tt := range []struct {
		name    string
		after   optionalSeq
		lastID  string
		want    *transcript.Sequence
		wantErr error
	}{
		{"neither", optionalSeq{}, "", nil, nil},
		{"after", optionalSeq{Value: 7, Set: true}, "", seq(7), nil},
		{"after 0", optionalSeq{Set: true}, "", seq(0), nil},
		{"Last-Event-ID over after", optionalSeq{Value: 7, Set: true}, " 12 ", seq(12), nil},
		{"Last-Event-ID not a sequence", optionalSeq{Value: 7, Set: true}, "x12", nil, errInvalid},
		{"Last-Event-ID negative", optionalSeq{}, "-1", nil, errInvalid},
	} {
		got, err := s.resumeFrom(tt.after, tt.lastID)
		if err != tt.wantErr {
			t.Errorf("%s: error %v, want %v", tt.name, err, tt.wantErr)
			continue
		}
		switch {
		case (got == nil) != (tt.want == nil):
			t.Errorf("%s: watermark %v, want %v", tt.name, got, tt.want)
		case got != nil && *got != *tt.want:
			t.Errorf("%s: watermark %d, want %d", tt.name, *got, *tt.want)
		}
	}
}
