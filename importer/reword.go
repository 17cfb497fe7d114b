package importer

import "github.com/sharedesk/transcript"

// within returns err under prefix, which names where it happened: prefix, then what err says
// without the "transcript: " it starts with. It unwraps to err.
func within(prefix string, err error) error {
	return &rewordedError{text: prefix + ": " + transcript.Reason(err), err: err}
}

// rewordedError is an error said in the command's words: its text, and the error it stands for.
type rewordedError struct {
	text string
	err  error
}

func (e *rewordedError) Error() string { return e.text }
func (e *rewordedError) Unwrap() error { return e.err }
