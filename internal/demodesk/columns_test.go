package demodesk

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestWrapCell(t *testing.T) {
	for _, c := range []struct {
		in    string
		width int
		want  []string
	}{
		{"#1 Ana: hello", 20, []string{"#1 Ana: hello"}},
		{"", 20, []string{""}},
		{"#1 Ana: the deploy is red again", 20, []string{"#1 Ana: the deploy", "  is red again"}},
		{"#12 x: " + strings.Repeat("y", 30) + " z", 20, []string{"#12 x:", "  " + strings.Repeat("y", 18), "  " + strings.Repeat("y", 12) + " z"}},
		{strings.Repeat("word ", 30), 20, []string{"word word word word", "  word word word", "  word word word", "  word word word" + CutMarker}},
	} {
		got := wrapCell(c.in, c.width)
		if !slices.Equal(got, c.want) {
			t.Errorf("wrapCell(%q, %d) =\n%q\nwant\n%q", c.in, c.width, got, c.want)
		}
		for _, l := range got {
			if n := utf8.RuneCountInString(l); n > c.width {
				t.Errorf("wrapCell(%q, %d): line %q has %d runes", c.in, c.width, l, n)
			}
		}
	}
}
