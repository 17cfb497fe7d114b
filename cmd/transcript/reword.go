package main

// rewordedError is an error said in the command's words: its text, and the error it stands for.
type rewordedError struct {
	text string
	err  error
}

func (e *rewordedError) Error() string { return e.text }
func (e *rewordedError) Unwrap() error { return e.err }
