package web

import "fmt"

// HttpRunner's general option index picks among a selector's matches: its browser driver sends
// it as element_index, the index-th element the selector matches in document order, counted
// from 0, and sends none below 1 (0 and the negatives act on the first). Here a negative index
// counts from the end, as corral's other index options do: -1 the last.

// matching says how many elements a selector matches.
func matching(n int) string {
	if n == 1 {
		return "1 element matches"
	}
	return fmt.Sprintf("%d elements match", n)
}

// atIndex names index in a message, where it is not the first match.
func atIndex(index int) string {
	if index == 0 {
		return ""
	}
	return fmt.Sprintf(" at index %d", index)
}
