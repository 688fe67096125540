package typo

import "unicode/utf8"

// MaxShown bounds the unknown word an error quotes: every name is far shorter, and a word of
// thousands of characters (a pasted page) would bury the message.
const MaxShown = 64

// Shown is word as an error about it quotes it: whole when it is at most MaxShown bytes long,
// else cut there, on a character boundary, and marked with "…".
func Shown(word string) string {
	if len(word) <= MaxShown {
		return word
	}
	n := MaxShown
	for n > 0 && !utf8.RuneStart(word[n]) {
		n--
	}
	return word[:n] + "…"
}
