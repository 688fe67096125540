package typo

import "unicode/utf8"

// MaxShown bounds the unknown word an error quotes: every name is far shorter, and a word of
// thousands of characters (a pasted page) would bury the message.
const MaxShown = 64

// Shown is word as an error about it quotes it: whole when it is at most MaxShown bytes long,
// else cut there (Cut).
func Shown(word string) string { return Cut(word, MaxShown) }

// Cut is s whole when it is at most n bytes long, else its first n bytes or fewer (cut on a
// character boundary) marked with "…": for a text an error or a note quotes within a bound of
// its own.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
