package tools

import "unicode/utf8"

// clipN shortens s to at most most bytes (on a rune boundary), marking the cut with "…".
func clipN(s string, most int) string {
	if len(s) <= most {
		return s
	}
	n := most
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
