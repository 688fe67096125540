package mcp

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// QA: a client named "x)\nalice (console<script>…" showed as a second lease row held by
// "alice (console…)". A client label keeps what names read as and nothing that could close
// the holder's parenthesis, start a line or turn the text around; it is cut to 64 runes.
func TestClientLabel(t *testing.T) {
	for _, tc := range []struct{ name, want string }{
		{"corral-cli", "corral-cli"},
		{"console", "console"},
		{"Visual Studio Code - Insiders", "Visual Studio Code - Insiders"},
		{"@modelcontextprotocol/inspector", "@modelcontextprotocol/inspector"},
		{"Claude (beta)", "Claude beta"},
		{"x)\nalice (console<script>alert(1)</script>", "x alice console script alert 1 /script"},
		{"ci) session 1a2b3c4d5e", "ci session 1a2b3c4d5e"},
		{"  tabs\tand\r\n\x00nul  ", "tabs and nul"},
		{"évier 设备 ﹙fullwidth（）❨❩", "évier 设备 fullwidth"},
		{"ab\u202ecba\u200bd", "abcbad"}, // a bidi override and a zero-width space are dropped
		{"bad\xffutf8", "badutf8"},
		{"((()))", ""},
		{"", ""},
		{strings.Repeat("a", 64), strings.Repeat("a", 64)},
		{strings.Repeat("a", 65), strings.Repeat("a", 63) + "…"},
		{strings.Repeat("é", 20000), strings.Repeat("é", 63) + "…"},
		{strings.Repeat("a", 63) + " (b)", strings.Repeat("a", 63) + "…"},
		{strings.Repeat("a", 64) + ")))", strings.Repeat("a", 64)},
		{strings.Repeat("0", 64) + " 0", strings.Repeat("0", 63) + "…"},   // the space does not fit either
		{strings.Repeat("0", 62) + " 0 0", strings.Repeat("0", 62) + "…"}, // nor the space left before "…"
	} {
		got := clientLabel(tc.name)
		if got != tc.want {
			t.Errorf("clientLabel(%q) = %q, want %q", tc.name, got, tc.want)
		}
		checkLabel(t, tc.name, got)
	}
}

// FuzzClientLabel: whatever a client calls itself, its label is short, valid UTF-8, has no
// character that could imitate another holder or break a line or a table, and is its own
// label (a gateway taking a session up reads the stored label and cleans it again).
func FuzzClientLabel(f *testing.F) {
	for _, s := range []string{"corral-cli", "x)\nalice (console<script>", "a\u202eb", strings.Repeat("ab ", 40), "\xff(", "…  …"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		checkLabel(t, name, clientLabel(name))
	})
}

func checkLabel(t *testing.T, name, label string) {
	t.Helper()
	if n := utf8.RuneCountInString(label); n > maxClientLabel {
		t.Errorf("clientLabel(%q) has %d runes", name, n)
	}
	if !utf8.ValidString(label) {
		t.Errorf("clientLabel(%q) = %q is not UTF-8", name, label)
	}
	if label != strings.TrimSpace(label) || strings.Contains(label, "  ") {
		t.Errorf("clientLabel(%q) = %q has spaces to spare", name, label)
	}
	for _, r := range label {
		if r != ' ' && (unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) ||
			unicode.In(r, unicode.Ps, unicode.Pe) || strings.ContainsRune(`<>"`, r)) {
			t.Errorf("clientLabel(%q) = %q keeps %U", name, label, r)
		}
	}
	if again := clientLabel(label); again != label {
		t.Errorf("clientLabel(%q) = %q, cleaned again %q", name, label, again)
	}
}
