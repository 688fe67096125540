package redact

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Where a secret stands whole in text (secrets.go says when that matters).

// quotedWhole says whether s[a:b] is the whole of a quoted string ("…" or '…', its closing
// quote escaped too, as in an error that quotes JSON) that is no JSON key.
func quotedWhole(s string, a, b int) bool {
	if a == 0 || b == len(s) {
		return false
	}
	q := s[a-1]
	if q != '"' && q != '\'' {
		return false
	}
	rest := strings.TrimPrefix(s[b:], `\`)
	if rest == "" || rest[0] != q {
		return false
	}
	return !strings.HasPrefix(strings.TrimLeft(rest[1:], " \t"), ":")
}

// wordWhole says whether s[a:b] stands as a word: no word rune touches it (where its own end
// is one).
func wordWhole(s string, a, b int) bool {
	first, _ := utf8.DecodeRuneInString(s[a:b])
	last, _ := utf8.DecodeLastRuneInString(s[a:b])
	before, _ := utf8.DecodeLastRuneInString(s[:a])
	after, _ := utf8.DecodeRuneInString(s[b:])
	return !(a > 0 && isWordRune(first) && isWordRune(before) || b < len(s) && isWordRune(last) && isWordRune(after))
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// keyRE matches a JSON key that looks like one: "name": with letters, digits, _, - and .
// between the quotes (the closing quote may be escaped: JSON inside a JSON string). A key is
// the tool's word, in every record of it whatever was typed: a mark there would spell the
// secret.
var keyRE = regexp.MustCompile(`"([A-Za-z0-9_.\-]+)\\?"[ \t]*:`)

// keySpans are the names of the JSON keys in s.
func keySpans(s string) []span {
	var out []span
	for _, m := range keyRE.FindAllStringSubmatchIndex(s, -1) {
		out = append(out, span{m[2], m[3]})
	}
	return out
}
