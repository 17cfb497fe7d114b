package digest

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/sharedesk/transcript"
	"github.com/sharedesk/transcript/render"
)

// Extractive is the default Digester: deterministic, with no model and no tokens to pay for.
// Its text is an outline, one line per folded message, newest last: the message's header as
// render.Text writes it (its Seq, its author's label, kind and id, the row it replies to)
// and the first line of its content, cut to lineRunes characters. The prior digest's lines
// come first, as many of the newest of them as the budget leaves room for; when lines had to
// go, the text starts with a line "…". The text never holds more than the budget's
// characters, however small the budget.
type Extractive struct{}

// lineRunes is the most characters one line of an Extractive outline holds.
const lineRunes = 200

// omitted is the line that starts an outline some older lines of which did not fit.
const omitted = "…"

// Name returns "extractive", the name of the digests it writes.
func (Extractive) Name() string { return "extractive" }

// Digest implements Digester. It fails only when ctx is done.
func (Extractive) Digest(ctx context.Context, r Request) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	var lines []string
	if r.Prior != nil {
		for line := range strings.Lines(r.Prior.Text) {
			if line = strings.TrimRight(line, "\n"); line != omitted && strings.TrimSpace(line) != "" {
				lines = append(lines, line)
			}
		}
	}
	for _, m := range r.Messages {
		lines = append(lines, outlineLine(m))
	}
	return fitLines(lines, max(r.Budget, 0)), nil
}

// outlineLine returns m's line of an outline: its header and its content's first line.
func outlineLine(m transcript.Message) string {
	first, _, _ := strings.Cut(strings.TrimSpace(m.Content), "\n")
	line := render.TextHeader(transcript.Author{}, m) + ": " + strings.TrimSpace(first)
	return cutRunes(line, lineRunes)
}

// fitLines joins the newest of lines that fit in budget characters, one a line, the text
// starting with the omitted line when older ones had to go; when not even the newest fits
// with that line, it is the newest cut to the budget.
func fitLines(lines []string, budget int) string {
	k, size := len(lines), 0 // lines[k:] are kept, in size characters
	for k > 0 {
		grown := size + utf8.RuneCountInString(lines[k-1])
		if k < len(lines) {
			grown++ // the newline before the line after it
		}
		need := grown
		if k > 1 {
			need += utf8.RuneCountInString(omitted) + 1
		}
		if need > budget {
			break
		}
		size, k = grown, k-1
	}
	switch {
	case len(lines) == 0:
		return ""
	case k == len(lines):
		return cutRunes(lines[k-1], budget)
	case k == 0:
		return strings.Join(lines, "\n")
	}
	return omitted + "\n" + strings.Join(lines[k:], "\n")
}

// cutRunes returns s cut to at most n characters, the last of them "…" when it was cut.
func cutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	i, k := 0, 0
	for k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	return s[:i] + "…"
}
