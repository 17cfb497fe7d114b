package main

// interruptedError is the failure of an action that stores all or nothing, interrupted
// (Ctrl-C, SIGTERM) before it stored anything: "import interrupted: nothing was imported".
type interruptedError struct {
	action string // what was interrupted: "import", "deleting desk eng"
	undone string // what did not happen: "imported", "deleted"
	err    error  // the action's error, which holds the context's
}

func (e *interruptedError) Error() string {
	return e.action + " interrupted: nothing was " + e.undone
}

func (e *interruptedError) Unwrap() error { return e.err }
