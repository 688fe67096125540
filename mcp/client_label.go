package mcp

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxClientLabel is how many runes of a client's name a holder keeps: enough for any real
// client's name ("Visual Studio Code - Insiders", "@modelcontextprotocol/inspector"), short
// enough that a holder fits a table cell and a page of devices stays a page.
const maxClientLabel = 64

// clientLabelPunct is the punctuation a client label keeps. Brackets of every kind are left
// out: a holder shows as "principal (client) session tag", and a client name with a ")" in it
// could show as another principal's holder ("x) alice (console"). "…" marks a cut label, and
// is kept so that cleaning a label again changes nothing (another gateway reads it back).
const clientLabelPunct = "-_.:/@+#,'&!?=~*…"

// clientLabel is the client name an MCP client gave in initialize, made fit to show in a
// holder: letters, digits, marks and clientLabelPunct are kept; format characters (bidi
// overrides, zero-width joiners) are dropped; anything else (controls, newlines, brackets,
// double quotes, symbols) separates words; runs of separators become one space, and the label is cut
// to maxClientLabel runes, ending in "…". A name with nothing left is "" (a holder without a
// client). clientLabel(clientLabel(s)) == clientLabel(s): every gateway derives one holder.
func clientLabel(name string) string {
	if isClientLabel(name) { // the common case, on every call: nothing to build
		return name
	}
	return cleanLabel(name)
}

// cleanLabel is clientLabel built rune by rune.
func cleanLabel(name string) string {
	var b strings.Builder
	runes, space := 0, false
	for _, r := range name {
		switch {
		case r == utf8.RuneError, unicode.Is(unicode.Cf, r):
			continue
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), strings.ContainsRune(clientLabelPunct, r):
		default:
			space = runes > 0
			continue
		}
		need := 1
		if space {
			need = 2
		}
		if runes+need > maxClientLabel {
			return cutLabel(b.String(), runes)
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		runes += need
	}
	return b.String()
}

// isClientLabel says whether clientLabel(name) is name: every rune kept, words separated by
// one space, none before the first or after the last, and 1 to maxClientLabel runes.
func isClientLabel(name string) bool {
	runes, space := 0, false
	for _, r := range name {
		runes++
		switch {
		case r == ' ':
			if runes == 1 || space {
				return false
			}
			space = true
		case r == utf8.RuneError, unicode.Is(unicode.Cf, r):
			return false
		case unicode.IsLetter(r), unicode.IsDigit(r), unicode.IsMark(r), strings.ContainsRune(clientLabelPunct, r):
			space = false
		default:
			return false
		}
	}
	return runes > 0 && !space && runes <= maxClientLabel
}

// cutLabel ends label, of n runes and with more to come, with "…" in maxClientLabel runes
// at most: its last rune gives way when it has maxClientLabel already, and a space before
// "…" goes (cleaning the label again would take it out).
func cutLabel(label string, n int) string {
	if n == maxClientLabel {
		_, size := utf8.DecodeLastRuneInString(label)
		label = label[:len(label)-size]
	}
	return strings.TrimRight(label, " ") + "…"
}
