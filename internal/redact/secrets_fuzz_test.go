package redact

import (
	"encoding/json"
	"encoding/xml"
	"html"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// A secret a tool's markup holds as a whole attribute value, escaped as the drivers escape it
// (encoding/xml, html), is taken out of it, and out of that markup inside a JSON string (a
// tool's JSON answer): whatever the secret, however short.
func FuzzRedactEscapedSecret(f *testing.F) {
	for _, seed := range []string{"Tr0ub&dor3", `p<ss&w0rd"x'`, "&", `"`, "'", "a<b>c", "line\none\ttab\r", "&amp;", `back\slash"`, "pässwörd&"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, secret string) {
		if secret == "" || !xmlSafe(secret) || strings.Contains(secret, mark) ||
			taskIDRE.MatchString(secret) || leaseHandleRE.MatchString(secret) {
			t.Skip("no secret a screen could show as it is")
		}
		var x strings.Builder
		_ = xml.EscapeText(&x, []byte(secret))
		for name, escaped := range map[string]string{"xml": x.String(), "html": html.EscapeString(secret)} {
			value := `"` + escaped + `"`
			for text, shown := range map[string]string{`<node text=` + value + ` />`: value, jsonQuoted(`<node text=` + value + ` />`): jsonQuoted(value)} {
				if got := hide(text, []string{secret}, nil); strings.Contains(got, shown) || !strings.Contains(got, mark) {
					t.Fatalf("%s: the secret %q shows in %q (was %q)", name, secret, got, text)
				}
			}
		}
	})
}

// xmlSafe says whether XML holds s as it is: valid UTF-8 of characters XML allows
// (xml.EscapeText writes others as U+FFFD, which no secret matches).
func xmlSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r >= 0xd800 && r <= 0xdfff || r == 0xfffe || r == 0xffff {
			return false
		}
	}
	return true
}

// jsonQuoted is s as a JSON string holds it, without the quotes.
func jsonQuoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// The rule holds of any text and secret: a text that holds no form of the secret comes back as
// it was; a text that is the secret comes back as the mark; and what comes back holds no form
// of the secret that stands whole (secrets.go) outside a name or a mark: in particular, no
// secret of AnywhereRunes runes or more but in a JSON key.
func FuzzSecretsLeaveNothingWhole(f *testing.F) {
	for _, seed := range [][2]string{
		{`{"hint":"peek to check the text","message":"typed 1 characters","text":"e"}`, "e"},
		{"typed 1 characters", "1"},
		{"device web-01: no web page open on web-01", "web"},
		{`{"text":"abchunter22"} and abchunter22 "hunter22": 1`, "hunter22"},
		{"typed test into the tests field", "test"},
		{`<node text="Tr0ub&amp;dor3" /> {"source":"<node text=\"Tr0ub\u0026amp;dor3\" />"}`, "Tr0ub&dor3"},
		{"task t_hunter22aaaaaaaa ended", "hunter22"},
		{"aaaaaaaaaaaaaaaaaaa", "aaaaaaaa"},
		{"e", "e"},
		{"typed xcorrect horsex", "correct horse"},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, text, secret string) {
		if secret == "" || !utf8.ValidString(secret) || strings.Contains(secret, mark) {
			t.Skip("no secret a caller sends") // arguments are JSON strings: valid UTF-8
		}
		got := hide(text, []string{secret}, nil)
		forms := secretForms(secret)
		if !slices.ContainsFunc(forms, func(f string) bool { return strings.Contains(text, f) }) {
			if got != text {
				t.Fatalf("%q holds no form of %q, but came back as %q", text, secret, got)
			}
			return
		}
		if slices.Contains(forms, text) && got != mark {
			t.Fatalf("the whole text is the secret %q, but came back as %q", secret, got)
		}
		marks := protectedSpans(got, []string{mark})
		keys := indexSpans(keySpans(got))
		n := utf8.RuneCountInString(secret)
		for _, form := range forms {
			for i := 0; i <= len(got)-len(form); {
				k := strings.Index(got[i:], form)
				if k < 0 {
					break
				}
				a, b := i+k, i+k+len(form)
				// The rule, spelled out again here: standsWhole must not lose a case.
				whole := a == 0 && b == len(got) || quotedWhole(got, a, b) ||
					n >= AnywhereRunes && !inKey(got, a, b) || n >= WordRunes && wordWhole(got, a, b) && !inKey(got, a, b)
				if whole && !overlaps(marks, a, b) {
					t.Fatalf("%q (as %q) still stands whole at %d in %q (was %q)", secret, form, a, got, text)
				}
				if keys.within(a, b) != inKey(got, a, b) {
					t.Fatalf("keyRE and inKey differ on %q at %d in %q", form, a, got)
				}
				_, size := utf8.DecodeRuneInString(got[a:])
				i = a + size
			}
		}
	})
}

func overlaps(spans []span, a, b int) bool {
	return slices.ContainsFunc(spans, func(p span) bool { return a < p.b && p.a < b })
}

// inKey says whether s[a:b] lies inside a JSON key, found as corral run first found it, by
// looking left and right of it: keyRE, which Hide uses to find them all at once, must agree.
func inKey(s string, a, b int) bool {
	l, r := a, b
	for l > 0 && keyByte(s[l-1]) {
		l--
	}
	for r < len(s) && keyByte(s[r]) {
		r++
	}
	if l == 0 || s[l-1] != '"' || strings.IndexFunc(s[a:b], func(c rune) bool { return c > 127 || !keyByte(byte(c)) }) >= 0 {
		return false
	}
	rest := strings.TrimPrefix(s[r:], `\`)
	return strings.HasPrefix(rest, `"`) && strings.HasPrefix(strings.TrimLeft(rest[1:], " \t"), ":")
}

func keyByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
