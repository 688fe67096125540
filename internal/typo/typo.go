// Package typo finds the name a mistyped word most likely meant: "did you mean" hints for
// tools, platforms and methods.
package typo

// Nearest is the name closest to word by edit distance, if it is close enough to be a typo:
// at most 2 edits, or a third of the word's length for longer words.
func Nearest(word string, names []string) (string, bool) {
	best, bestDist := "", len(word)+1
	for _, n := range names {
		if d := Distance(word, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, best != "" && bestDist <= max(2, len(word)/3)
}

// Distance is the Levenshtein distance between a and b, in bytes (names are ASCII).
func Distance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
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
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
