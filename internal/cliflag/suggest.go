package cliflag

// Nearest returns the one of names that word is most likely a typo of, and true: the first
// at the least edit distance (Damerau-Levenshtein, a swap of two neighbouring letters
// counting as one edit), when that distance is at most 2 and below word's length, so
// "veiw" is view, "tokens" token and "dsek" desk, but "ls" nothing. It returns "" and false
// when no name is that near, or when word is one of names.
func Nearest(word string, names []string) (string, bool) {
	best, bestDistance := "", 3
	for _, name := range names {
		if name == word {
			return "", false
		}
		if d := editDistance(word, name); d < bestDistance && d < len(word) {
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
