package main

import (
	"cmp"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Where a secret is taken out of what the CLI shows. Replacing every occurrence of it made a
// typed "e" take the e out of serials, task ids, JSON keys and every word of an error (QA), so
// a secret goes only where it stands as a whole:
//   - a whole value: the text is the secret (an argument, a log attribute);
//   - a whole quoted string: "e" or 'e' (a JSON value, a quoted word), never a JSON key;
//   - from wordRunes runes on, a whole word too: no letter, digit or _ touching either end;
//   - from containRunes runes on, anywhere inside a quoted string or an argument too (a field
//     that showed other text before the secret was typed into it).
//
// Never inside a lease handle (shown by its kind instead), a task id, a serial the call or
// steps name, or a mark already put. A realistic secret (a password, a token, a typed
// sentence) is thus left out wherever it shows; a letter typed is left out where it stands
// alone, not out of every word that holds it.
const (
	wordRunes    = 4
	containRunes = 8
)

// taskIDRE matches a task id (broker.NewTaskID).
var taskIDRE = regexp.MustCompile(`\bt_[a-z2-7]{16}\b`)

// quotedRE matches a double-quoted string, escapes and all.
var quotedRE = regexp.MustCompile(`"(?:[^"\\\n]|\\.)*"`)

// span is s[a:b].
type span struct{ a, b int }

func overlaps(spans []span, a, b int) bool {
	return slices.ContainsFunc(spans, func(p span) bool { return a < p.b && p.a < b })
}

func within(spans []span, a, b int) bool {
	return slices.ContainsFunc(spans, func(p span) bool { return p.a <= a && b <= p.b })
}

// redactSecrets is s with secrets (longest first: sortSecrets) taken out where they stand
// whole, keep (serials) left as they are.
func redactSecrets(s string, secrets, keep []string) string {
	return redactIn(s, secrets, keep, false)
}

// redactValue is redactSecrets for a value that is one string (an argument): the whole of it
// counts as quoted.
func redactValue(s string, secrets, keep []string) string {
	return redactIn(s, secrets, keep, true)
}

func redactIn(s string, secrets, keep []string, value bool) string {
	if s == "" || len(secrets) == 0 || slices.Contains(keep, s) {
		return s
	}
	protected := protectedSpans(s, keep)
	var quoted []span
	if value {
		quoted = []span{{0, len(s)}}
	} else {
		for _, m := range quotedRE.FindAllStringIndex(s, -1) {
			if !strings.HasPrefix(strings.TrimLeft(s[m[1]:], " \t"), ":") { // a key is no value
				quoted = append(quoted, span{m[0] + 1, m[1] - 1})
			}
		}
	}
	var cuts []span
	for _, secret := range secrets {
		n := utf8.RuneCountInString(secret)
		for _, form := range secretForms(secret) {
			for i := 0; i <= len(s)-len(form); {
				k := strings.Index(s[i:], form)
				if k < 0 {
					break
				}
				a, b := i+k, i+k+len(form)
				if !overlaps(protected, a, b) && !overlaps(cuts, a, b) &&
					(a == 0 && b == len(s) || quotedWhole(s, a, b) ||
						n >= wordRunes && wordWhole(s, a, b) ||
						n >= containRunes && within(quoted, a, b) && !inKey(s, a, b)) {
					cuts = append(cuts, span{a, b})
					i = b
					continue
				}
				_, size := utf8.DecodeRuneInString(s[a:])
				i = a + size
			}
		}
	}
	if len(cuts) == 0 {
		return s
	}
	slices.SortFunc(cuts, func(x, y span) int { return x.a - y.a })
	var out strings.Builder
	last := 0
	for _, c := range cuts {
		out.WriteString(s[last:c.a])
		out.WriteString(redactedMark)
		last = c.b
	}
	out.WriteString(s[last:])
	return out.String()
}

// secretForms are the ways secret shows in text, longest first: as it is, as the markup
// escapers a tool's answer may hold write it (markupForms), and each of those escaped inside a
// JSON or Go string (a quote, a backslash, <, > and & are).
func secretForms(secret string) []string {
	var forms []string
	for _, f := range append([]string{secret}, markupForms(secret)...) {
		forms = append(forms, f)
		if b, err := json.Marshal(f); err == nil {
			forms = append(forms, string(b[1:len(b)-1]))
		}
		q := strconv.Quote(f)
		forms = append(forms, q[1:len(q)-1])
	}
	slices.SortFunc(forms, func(x, y string) int { return cmp.Or(len(y)-len(x), strings.Compare(x, y)) })
	return slices.Compact(forms)
}

// markupEscapers write a secret the way the XML or HTML a tool answers with does (get_source),
// each as one writer spells & < > " ' and the tab, newline and return: a screen shows typed
// text, a field's text in an attribute. Only the writers the drivers and devices use.
var markupEscapers = []*strings.Replacer{
	// Go's encoding/xml (xml.EscapeText: the sim, browser and iOS drivers' get_source).
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;",
		"\t", "&#x9;", "\n", "&#xA;", "\r", "&#xD;"),
	// Go's html.EscapeString and html/template: line breaks as they are.
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;"),
	// An attribute as uiautomator dump (Android's KXmlSerializer) and WebDriverAgent (libxml2)
	// write it: the apostrophe as it is.
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
		"\t", "&#9;", "\n", "&#10;", "\r", "&#13;"),
	// XML's named entities, the apostrophe's too (&apos;).
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;", "'", "&apos;"),
	// Text between tags, as those writers write it: the quotes as they are.
	strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;"),
}

// markupForms are secret as markupEscapers write it: none for a secret none of them changes.
func markupForms(secret string) []string {
	if !strings.ContainsAny(secret, "&<>\"'\t\n\r") {
		return nil
	}
	var out []string
	for _, r := range markupEscapers {
		if f := r.Replace(secret); f != secret {
			out = append(out, f)
		}
	}
	return out
}

// protectedSpans are the parts of s no secret is taken out of: lease handles, task ids, marks
// already put, and the serials in keep.
func protectedSpans(s string, keep []string) []span {
	var out []span
	for _, re := range []*regexp.Regexp{leaseHandleRE, taskIDRE} {
		for _, m := range re.FindAllStringIndex(s, -1) {
			out = append(out, span{m[0], m[1]})
		}
	}
	for _, k := range append([]string{redactedMark}, keep...) {
		if k == "" {
			continue
		}
		for i := 0; ; {
			j := strings.Index(s[i:], k)
			if j < 0 {
				break
			}
			out = append(out, span{i + j, i + j + len(k)})
			i += j + len(k)
		}
	}
	return out
}

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
// is one), and it is not inside a JSON key.
func wordWhole(s string, a, b int) bool {
	first, _ := utf8.DecodeRuneInString(s[a:b])
	last, _ := utf8.DecodeLastRuneInString(s[a:b])
	before, _ := utf8.DecodeLastRuneInString(s[:a])
	after, _ := utf8.DecodeRuneInString(s[b:])
	if a > 0 && isWordRune(first) && isWordRune(before) || b < len(s) && isWordRune(last) && isWordRune(after) {
		return false
	}
	return !inKey(s, a, b)
}

func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// inKey says whether s[a:b] lies inside a JSON key that looks like one: "name": with letters,
// digits, _, - and . between the quotes (the closing quote may be escaped).
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
