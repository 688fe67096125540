package mcp

import (
	"strings"
	"testing"
)

// Task ids and lease handles go into NATS subjects: only letters, digits, '_' and '-', 1 to 128
// of them, pass.
func TestIsID(t *testing.T) {
	for v, want := range map[string]bool{
		"t_0123456789abcdef":     true,
		"lease_AZaz09-_":         true,
		strings.Repeat("a", 128): true,
		strings.Repeat("a", 129): false,
		"":                       false,
		"a.b":                    false,
		"a*":                     false,
		"a>":                     false,
		"a b":                    false,
		"é":                      false,
		"a\x00":                  false,
		"a=b":                    false,
	} {
		if got := isID(v); got != want {
			t.Errorf("isID(%q) = %v, want %v", v, got, want)
		}
		if err := checkID("lease", v); (err == nil) != want {
			t.Errorf("checkID(%q) = %v", v, err)
		}
	}
}
