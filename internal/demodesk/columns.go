package demodesk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/internal/console"
	"github.com/sharedesk/transcript/render"
)

// cell is one message or elision in a column: its text and its colour.
type cell struct{ text, color string }

// cells returns the column of a view: its messages and its elisions in sequence order.
func cells(viewer transcript.Author, p transcript.Projection) []cell {
	out := make([]cell, 0, len(p.Messages)+len(p.Elided))
	elided := p.Elided
	for _, m := range p.Messages {
		for len(elided) > 0 && elided[0].From < m.Seq {
			out = append(out, elisionCell(elided[0]))
			elided = elided[1:]
		}
		out = append(out, messageCell(viewer, m))
	}
	for _, e := range elided {
		out = append(out, elisionCell(e))
	}
	return out
}

// elisionCell is an elision in a column, worded as view words it (render.ElisionLine). It
// holds no content: an elision has none.
func elisionCell(e transcript.Elision) cell {
	return cell{text: render.ElisionLine(e), color: console.Dim}
}

// messageCell is m in viewer's column: its seq, a mark when it is a reply, its author ("you"
// for the viewer's own) and its content, in its author's colour.
func messageCell(viewer transcript.Author, m transcript.Message) cell {
	who := m.Author.Label
	own := viewer.Same(m.Author)
	if own {
		who = "you"
	}
	reply := ""
	if m.Parent != 0 {
		reply = "↳"
	}
	return cell{text: fmt.Sprintf("#%d %s%s: %s", m.Seq, reply, who, m.Content), color: console.AuthorColor(m, own)}
}

const (
	columnGap      = "  "
	minColumnWidth = 20
	// MaxCellLines is how many lines a cell may take in its column; a cell longer than
	// that is cut, and its last line ends in CutMarker.
	MaxCellLines = 4
	CutMarker    = "…"
	// continuation indents a cell's lines after its first, so that each cell starts
	// with its "#seq" at the column's edge.
	continuation = "  "
)

// sideBySide prints columns of cells side by side, sharing out the terminal's width: each
// cell takes as many lines of its column as its text needs, up to MaxCellLines, so that
// only what does not fit there is cut.
func (t Terminal) sideBySide(titles []string, cols [][]cell) {
	width := max((t.Width-len(columnGap)*(len(cols)-1))/len(cols), minColumnWidth)
	lines := make([][]cell, len(cols)) // each column's lines, each with its cell's colour
	height := 1
	for i, c := range cols {
		lines[i] = append(lines[i], cell{text: titles[i], color: console.Bold})
		for _, x := range c {
			for _, l := range wrapCell(x.text, width) {
				lines[i] = append(lines[i], cell{text: l, color: x.color})
			}
		}
		height = max(height, len(lines[i]))
	}
	var b strings.Builder
	for r := range height {
		var row strings.Builder
		for i := range lines {
			if i > 0 {
				row.WriteString(columnGap)
			}
			var x cell
			if r < len(lines[i]) {
				x = lines[i][r]
			}
			row.WriteString(t.paint(x.color, pad(x.text, width)))
		}
		b.WriteString(strings.TrimRight(row.String(), " "))
		b.WriteString("\n")
	}
	fmt.Fprint(t.Out, b.String())
}

// wrapCell breaks s into lines of at most width runes at spaces, each line after the first
// indented by continuation; a word longer than a line starts a line of its own and is broken
// where the line ends. Past MaxCellLines lines it is cut: the last line kept ends in
// CutMarker.
func wrapCell(s string, width int) []string {
	var lines []string
	line, fresh := []rune{}, true // fresh: the line holds nothing but its indent
	flush := func() {
		lines = append(lines, string(line))
		line, fresh = []rune(continuation), true
	}
	for _, word := range strings.Fields(s) {
		w := []rune(word)
		for len(w) > 0 {
			sep := 1
			if fresh {
				sep = 0
			}
			switch {
			case len(line)+sep+len(w) <= width:
				if !fresh {
					line = append(line, ' ')
				}
				line, w, fresh = append(line, w...), nil, false
			case !fresh:
				flush()
			default:
				free := width - len(line)
				line, w, fresh = append(line, w[:free]...), w[free:], false
				flush()
			}
		}
	}
	if !fresh || len(lines) == 0 {
		lines = append(lines, string(line))
	}
	if len(lines) > MaxCellLines {
		last := []rune(lines[MaxCellLines-1])
		keep := min(len(last), width-utf8.RuneCountInString(CutMarker))
		lines = append(lines[:MaxCellLines-1], string(last[:keep])+CutMarker)
	}
	return lines
}

// pad pads s with spaces to width runes.
func pad(s string, width int) string {
	return s + strings.Repeat(" ", max(width-utf8.RuneCountInString(s), 0))
}
