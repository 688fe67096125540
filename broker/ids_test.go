package broker

import (
	"regexp"
	"testing"
)

var tokenRE = regexp.MustCompile(`^[-_=A-Za-z0-9]+$`)

func TestToken(t *testing.T) {
	for in, want := range map[string]string{
		"emulator-5554":     "emulator-5554",
		"192.168.1.5:5555":  "192=2E168=2E1=2E5=3A5555",
		"":                  "=00",
		"a b>c*":            "a=20b=3Ec=2A",
		"00008101-001A2B3C": "00008101-001A2B3C",
	} {
		if got := Token(in); got != want {
			t.Errorf("Token(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzToken: every serial becomes a valid subject token and KV key, and different serials
// never share one.
func FuzzToken(f *testing.F) {
	f.Add("192.168.1.5:5555", "192=2E168")
	f.Fuzz(func(t *testing.T, a, b string) {
		ta, tb := Token(a), Token(b)
		if !tokenRE.MatchString(ta) {
			t.Fatalf("Token(%q) = %q is not a valid token", a, ta)
		}
		if a != b && ta == tb && a != "" && b != "" {
			t.Fatalf("Token(%q) == Token(%q) == %q", a, b, ta)
		}
	})
}
