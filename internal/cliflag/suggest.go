package cliflag

import (
	"fmt"
	"slices"
	"strings"

	"github.com/sharedesk/transcript/internal/quotable"
)

// OneOf returns nil when value, what the flag what names was given ("--format", "desks
// --format"), is one of names, else a usage error that says which it wants and, when value
// is near one of them (Nearest), that one: --format "opneai": want text, json, openai or
// anthropic; did you mean openai?. A value that quotable.Name does not allow (but "") is
// neither quoted nor looked at: it could be a secret.
func OneOf(what, value string, names ...string) error {
	if slices.Contains(names, value) {
		return nil
	}
	want := "want " + orList(names)
	if value != "" && !quotable.Name(value) {
		return Usagef("%s (%s): %s", what, NotQuoted, want)
	}
	if near, ok := Nearest(value, names); ok {
		return Usagef("%s %q: %s; did you mean %s?", what, value, want, near)
	}
	return Usagef("%s %q: %s", what, value, want)
}

// orList returns names as a sentence lists them: "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return fmt.Sprintf("%s or %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

// Nearest returns the one of names that word is most likely a typo of, and true: the first
// at the least edit distance (Damerau-Levenshtein, a swap of two neighbouring letters
// counting as one edit, case aside), when that distance is at most 2 and below word's
// length, so "veiw" is view, "tokens" token, "dsek" desk and "JSON" json, but "ls"
// nothing. It returns "" and false when no name is that near, or when word is one of names.
func Nearest(word string, names []string) (string, bool) {
	best, bestDistance := "", 3
	lower := strings.ToLower(word)
	for _, name := range names {
		if name == word {
			return "", false
		}
		if d := editDistance(lower, strings.ToLower(name)); d < bestDistance && d < len(word) {
			best, bestDistance = name, d
		}
	}
	return best, best != ""
}

// editDistance returns the optimal string alignment distance between a and b, by bytes:
// the fewest insertions, deletions, substitutions and swaps of neighbours that turn a into
// b, no substring edited twice.
func editDistance(a, b string) int {
	// rows[i][j] is the distance between a[:i] and b[:j]; three rows suffice.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
