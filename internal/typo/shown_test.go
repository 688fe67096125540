package typo

import (
	"strings"
	"testing"
)

// An unknown word is quoted whole up to MaxShown bytes, else cut there on a character
// boundary: a 5,000-character tool name was echoed whole.
func TestShown(t *testing.T) {
	long := strings.Repeat("x", 5000)
	wide := strings.Repeat("x", MaxShown-1) + "é" + long // é straddles the cut
	for _, c := range []struct{ word, want string }{
		{"", ""},
		{"TAP_XY", "TAP_XY"},
		{long[:MaxShown], long[:MaxShown]},
		{long, long[:MaxShown] + "…"},
		{wide, long[:MaxShown-1] + "…"},
	} {
		if got := Shown(c.word); got != c.want {
			t.Errorf("Shown(%d bytes) = %q, want %q", len(c.word), got, c.want)
		}
	}
}

// Cut bounds a text at any n as Shown does at MaxShown: whole up to n bytes, else cut on a
// character boundary and marked.
func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		n    int
		want string
	}{
		{"cursor", 40, "cursor"},
		{strings.Repeat("a", 40), 40, strings.Repeat("a", 40)},
		{strings.Repeat("a", 41), 40, strings.Repeat("a", 40) + "…"},
		{strings.Repeat("a", 39) + "é", 40, strings.Repeat("a", 39) + "…"}, // é straddles the cut
		{"é", 1, "…"},
		{"ab", 0, "…"},
	} {
		if got := Cut(c.s, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.s, c.n, got, c.want)
		}
	}
}
