package typo

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, c := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"tap_xy", "tap_xy", 0}, {"tap_yx", "tap_xy", 2}, {"hom", "home", 1}, {"", "abc", 3}, {"kitten", "sitting", 3}} {
		if got := Distance(c.a, c.b); got != c.d {
			t.Errorf("Distance(%q, %q) = %d, want %d", c.a, c.b, got, c.d)
		}
	}
}

func TestNearest(t *testing.T) {
	names := []string{"android", "arm", "ios", "web", "tap_xy", "tap_yx"}
	for word, want := range map[string]string{"andriod": "android", "iso": "ios", "webb": "web", "harmony": "",
		// another case is the same name, not 6 edits away; a typo in another case is a typo
		"TAP_XY": "tap_xy", "Tap_Yx": "tap_yx", "ANDRIOD": "android", "WEBB": "web",
		strings.Repeat("x", 5000): "", strings.Repeat("TAP_XY", 100): ""} {
		got, ok := Nearest(word, names)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("Nearest(%q) = %q, %v; want %q", Shown(word), got, ok, want)
		}
	}
}
