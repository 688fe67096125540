// Package typo finds the name a mistyped word most likely meant, "did you mean" hints for
// tools, platforms, commands and flags, and cuts such a word short for the error that quotes it.
package typo

import "strings"

// Nearest is the name word most likely meant: the name that is word in another case (TAP_XY
// meant tap_xy), else the closest by edit distance with case ignored, if close enough to be a
// typo: at most 2 edits, or a third of the word's length for longer words.
func Nearest(word string, names []string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(n, word) {
			return n, true
		}
	}
	limit := max(2, len(word)/3)
	lower := strings.ToLower(word)
	best, bestDist := "", limit+1
	for _, n := range names {
		// No distance is below the difference in length: a word far longer than every name (a
		// pasted page) costs no distance at all.
		if abs(len(n)-len(word)) > limit {
			continue
		}
		if d := Distance(lower, strings.ToLower(n)); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, best != ""
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
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
