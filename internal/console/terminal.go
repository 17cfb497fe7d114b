package console

import (
	"io"
	"os"

	"golang.org/x/term"
)

// Terminal is what a command knows of the terminals its output goes to.
type Terminal struct {
	Color    bool // standard output is a terminal that takes colour: NO_COLOR unset, TERM not dumb
	Progress bool // standard error is a terminal, where progress may be drawn
	Width    int  // standard output's width in columns; 120 when it is no terminal
}

// Detect returns what stdout and stderr are: a terminal only when it is an *os.File that
// is one.
func Detect(stdout, stderr io.Writer) Terminal {
	t := Terminal{Width: 120}
	if f, ok := stdout.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			t.Width = w
		}
	}
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		t.Progress = true
	}
	return t
}
