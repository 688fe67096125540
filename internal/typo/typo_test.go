package typo

import "testing"

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
	names := []string{"android", "arm", "ios", "web"}
	for word, want := range map[string]string{"andriod": "android", "iso": "ios", "webb": "web", "harmony": ""} {
		got, ok := Nearest(word, names)
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("Nearest(%q) = %q, %v; want %q", word, got, ok, want)
		}
	}
}
