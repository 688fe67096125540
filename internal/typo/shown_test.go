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
