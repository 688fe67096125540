package mcp

import (
	"strings"
	"testing"
)

// A client's name that is a label already (most are) is its own label without building one:
// holderFrom and the session's context function take it on every call.
func TestCleanClientNameIsItsOwnLabelUnbuilt(t *testing.T) {
	for _, name := range []string{"corral-cli", "Visual Studio Code - Insiders", "@modelcontextprotocol/inspector", "évier 设备",
		strings.Repeat("a", 63) + "…"} {
		if !isClientLabel(name) || clientLabel(name) != name {
			t.Errorf("clientLabel(%q) = %q; isClientLabel %v", name, clientLabel(name), isClientLabel(name))
		}
	}
	for _, name := range []string{"", " a", "a ", "a  b", "a\tb", "Claude (beta)", "ab\u202ecba", "bad\xffutf8", "\ufffd", strings.Repeat("a", 65)} {
		if isClientLabel(name) {
			t.Errorf("isClientLabel(%q) is true; its label is %q", name, cleanLabel(name))
		}
	}
	if !raceEnabled {
		name := "bench-floors-12"
		if n := testing.AllocsPerRun(100, func() { labelSink = clientLabel(name) }); n != 0 {
			t.Errorf("clientLabel of a clean name makes %v allocations, want 0", n)
		}
	}
}

var labelSink string

// FuzzIsClientLabel: a name isClientLabel passes is exactly what cleaning it gives.
func FuzzIsClientLabel(f *testing.F) {
	for _, s := range []string{"corral-cli", "a b", "a  b", " a", "…", "x)\n", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		clean := cleanLabel(name)
		if isClientLabel(name) != (clean == name && name != "") {
			t.Fatalf("isClientLabel(%q) = %v, but its label is %q", name, isClientLabel(name), clean)
		}
	})
}
