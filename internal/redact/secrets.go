package redact

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Where a secret (typed text, a password, a captcha, a passcode) is taken out of text that
// others read: a task's record and the event stream (broker.TaskResult.Record), corral run's
// reports, table and log, corral call's error. Replacing every occurrence made a typed "e"
// take the e out of every word, serial and key ("p[redacted][redacted]k to ch[redacted]ck"),
// and the marks spelled the secret out for anyone who reads the record. So a secret goes only
// where it stands as a whole, or where it is long enough that no word around it tells it:
//   - a whole value, whatever its length: the text is the secret (input's "text" in a
//     record, an argument, a log attribute);
//   - a whole quoted string, whatever its length: "e" or 'e' (a JSON value, an error that
//     quotes what it typed with %q), never a JSON key;
//   - from WordRunes runes on, a whole word too: no letter, digit or _ touching either end;
//   - from AnywhereRunes runes on, anywhere but in a JSON key.
//
// A shorter secret inside other text is left as it is: "typed 1 characters" stays readable,
// where a mark would say which digit was typed; a driver's error that echoes a letter unquoted
// shows it, as the marks around every e in it would have. A secret of a few characters is
// weak anyway (the record says how many were typed): no mark can hide it where the text
// around it spells it. Never taken apart either: a lease handle, a task id, a name the caller
// keeps (the device's serial, the node's id: the record shows them in their own fields), or
// a mark already put, except where the whole value is the secret.
const (
	WordRunes     = 4
	AnywhereRunes = 8
)

// Secrets are the secret values of a task or a run, and how Hide takes them out.
type Secrets struct {
	mark   string
	values []string // longest first, so that a secret holding another is taken out whole
	names  []string
}

// NewSecrets takes values out of text where they stand whole, each replaced by mark, and
// never takes names apart (serials, node ids).
func NewSecrets(mark string, values []string, names ...string) Secrets {
	return Secrets{mark: mark}.With(values, names...)
}

// With is s with more values and names.
func (s Secrets) With(values []string, names ...string) Secrets {
	all := slices.DeleteFunc(append(slices.Clone(s.values), values...), func(v string) bool { return v == "" })
	slices.SortFunc(all, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	s.values = slices.Compact(all)
	s.names = slices.DeleteFunc(append(slices.Clone(s.names), names...), func(n string) bool { return n == "" })
	return s
}

// Empty says whether there is no secret to take out.
func (s Secrets) Empty() bool { return len(s.values) == 0 }

// Hide is text with the secrets taken out where they stand whole (the rule above), each in
// any of the forms a tool may write it (secretForms). It takes time in proportion to the
// text's length (get_source's XML may be large), not to its square.
func (s Secrets) Hide(text string) string {
	if text == "" || len(s.values) == 0 {
		return text
	}
	p := newPlace(text, append([]string{s.mark}, s.names...))
	taken := make([]bool, len(text))
	var cuts []span
	for _, secret := range s.values {
		n := utf8.RuneCountInString(secret)
		for _, form := range secretForms(secret) {
			for i := 0; i <= len(text)-len(form); {
				k := strings.Index(text[i:], form)
				if k < 0 {
					break
				}
				a, b := i+k, i+k+len(form)
				whole := a == 0 && b == len(text)
				if !slices.Contains(taken[a:b], true) && (whole || !p.protected.within(a, b) && p.standsWhole(a, b, n)) {
					cuts = append(cuts, span{a, b})
					for j := a; j < b; j++ {
						taken[j] = true
					}
					i = b
					continue
				}
				_, size := utf8.DecodeRuneInString(text[a:])
				i = a + size
			}
		}
	}
	if len(cuts) == 0 {
		return text
	}
	slices.SortFunc(cuts, func(x, y span) int { return x.a - y.a })
	var out strings.Builder
	last := 0
	for _, c := range cuts {
		out.WriteString(text[last:c.a])
		out.WriteString(s.mark)
		last = c.b
	}
	out.WriteString(text[last:])
	return out.String()
}

// place is a text about to lose its secrets, with what Hide looks up for every occurrence
// found once: its JSON keys, and the names no secret takes apart.
type place struct {
	text      string
	keys      spanIndex
	protected spanIndex
}

func newPlace(text string, names []string) place {
	return place{text: text, keys: indexSpans(keySpans(text)), protected: indexSpans(protectedSpans(text, names))}
}

// standsWhole says whether text[a:b], a form of a secret of n runes, is taken out there.
func (p place) standsWhole(a, b, n int) bool {
	switch {
	case quotedWhole(p.text, a, b):
		return true
	case n >= AnywhereRunes:
		return !p.keys.within(a, b)
	case n >= WordRunes:
		return wordWhole(p.text, a, b) && !p.keys.within(a, b)
	}
	return false
}

// span is text[a:b].
type span struct{ a, b int }

// spanIndex finds at once whether spans, which may overlap, hold a part of the text.
type spanIndex struct {
	starts []int // sorted
	maxEnd []int // the furthest end of the spans up to each start
}

func indexSpans(spans []span) spanIndex {
	slices.SortFunc(spans, func(x, y span) int { return cmp.Or(x.a-y.a, x.b-y.b) })
	x := spanIndex{starts: make([]int, len(spans)), maxEnd: make([]int, len(spans))}
	for i, p := range spans {
		x.starts[i], x.maxEnd[i] = p.a, p.b
		if i > 0 {
			x.maxEnd[i] = max(p.b, x.maxEnd[i-1])
		}
	}
	return x
}

// within says whether one of the spans holds [a, b).
func (x spanIndex) within(a, b int) bool {
	i, _ := slices.BinarySearch(x.starts, a+1) // the spans that start at a or before
	return i > 0 && x.maxEnd[i-1] >= b
}
