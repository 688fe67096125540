package main

import (
	"encoding/json"
	"encoding/xml"
	"html"
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
		if secret == "" || !xmlSafe(secret) || strings.Contains(secret, redactedMark) ||
			taskIDRE.MatchString(secret) || leaseHandleRE.MatchString(secret) {
			t.Skip("no secret a screen could show as it is")
		}
		var x strings.Builder
		_ = xml.EscapeText(&x, []byte(secret))
		for name, escaped := range map[string]string{"xml": x.String(), "html": html.EscapeString(secret)} {
			value := `"` + escaped + `"`
			for text, shown := range map[string]string{`<node text=` + value + ` />`: value, jsonQuoted(`<node text=` + value + ` />`): jsonQuoted(value)} {
				if got := redactSecrets(text, []string{secret}, nil); strings.Contains(got, shown) || !strings.Contains(got, redactedMark) {
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
