package agent

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxExpectRunes bounds a label worth checking for: a short one is a title or a button,
// a long one is content that may change.
const maxExpectRunes = 60

// listed is one element of a listing: its kind, label and bbox (relative 0-1; zero when the
// line has none).
type listed struct {
	kind, label string
	box         [4]float64
}

// elements reads an element listing (`id [kind] "label" [l,t,r,b] conf`), in order; lines in
// another form, or without a label, are skipped.
func elements(listing string) []listed {
	var out []listed
	for line := range strings.Lines(listing) {
		i := strings.Index(line, `] "`)
		if i < 0 {
			continue
		}
		q, err := strconv.QuotedPrefix(line[i+2:])
		if err != nil {
			continue
		}
		l, err := strconv.Unquote(q)
		if l = strings.TrimSpace(l); err != nil || l == "" {
			continue
		}
		e := listed{label: l}
		if k := strings.LastIndex(line[:i], "["); k >= 0 {
			e.kind = line[k+1 : i]
		}
		e.box = bbox(line[i+2+len(q):])
		out = append(out, e)
	}
	return out
}

// bbox reads the `[l,t,r,b]` that follows a listing's label; zero if there is none.
func bbox(rest string) (b [4]float64) {
	rest = strings.TrimSpace(rest)
	end := strings.IndexByte(rest, ']')
	if !strings.HasPrefix(rest, "[") || end < 0 {
		return b
	}
	parts := strings.Split(rest[1:end], ",")
	if len(parts) != 4 {
		return b
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return [4]float64{}
		}
		b[i] = f
	}
	return b
}

// labels reads the labels of an element listing, in order.
func labels(listing string) []string {
	var out []string
	for _, e := range elements(listing) {
		out = append(out, e.label)
	}
	return out
}

// newLabel is what an action made appear, for a replayed test to wait for: a label after shows
// that before did not, distinctive enough that only this screen is likely to show it
// (distinctive) and shown once; of those the tallest (a title, a larger font), the first in
// listing order among equals. "" when none is: a generic label would let a replay pass on the
// wrong screen.
func newLabel(before, after string) string {
	old := map[string]bool{}
	for _, l := range labels(before) {
		old[l] = true
	}
	els := elements(after)
	boxes := map[string][][4]float64{}
	for _, e := range els {
		boxes[e.label] = append(boxes[e.label], e.box)
	}
	var cands []listed
	for _, e := range els {
		if !old[e.label] && once(boxes[e.label]) && distinctive(e) {
			cands = append(cands, e)
		}
	}
	if len(cands) == 0 {
		return ""
	}
	// MinFunc keeps the first of equals: listing order.
	return slices.MinFunc(cands, func(a, b listed) int { return -cmp.Compare(height(a), height(b)) }).label
}

// once says whether a label's boxes are one thing shown once: a list row and the text inside
// it, alike, nest; two boxes side by side are the label twice (a "Delete" in every row).
func once(boxes [][4]float64) bool {
	for i, a := range boxes {
		for _, b := range boxes[i+1:] {
			if !within(a, b) && !within(b, a) {
				return false
			}
		}
	}
	return true
}

// within says whether box a lies inside box b.
func within(a, b [4]float64) bool {
	return a[0] >= b[0] && a[1] >= b[1] && a[2] <= b[2] && a[3] <= b[3]
}

// height is e's height, to a half percent of the screen's: a larger font, a title.
func height(e listed) int { return int((e.box[3]-e.box[1])*200 + 0.5) }

// distinctive says whether e's label tells its screen apart: short, with a letter in it (not
// a clock or a battery level, which change on their own), not a label every sub-screen's
// toolbar or navigation has (navLabel), not an app's bundle id, and not an element that
// covers the screen (iOS lists the app itself so).
func distinctive(e listed) bool {
	l := e.label
	switch {
	case utf8.RuneCountInString(l) > maxExpectRunes, !strings.ContainsFunc(l, unicode.IsLetter):
		return false
	case navLabel(l), bundleID(l):
		return false
	}
	return (e.box[2]-e.box[0])*(e.box[3]-e.box[1]) < 0.9
}

// navLabel says whether l is a toolbar's or navigation's label, alike on every screen that
// has one.
func navLabel(l string) bool {
	switch strings.ToLower(l) {
	case "navigate up", "back", "go back", "up", "close", "cancel", "done", "ok", "more options", "more", "menu",
		"search", "open navigation drawer", "close navigation drawer", "collapse", "expand", "home", "overview",
		"recent apps", "clear":
		return true
	}
	return false
}

// bundleID says whether l reads as an app's id (com.corral.settings): at least three
// dot-separated words, no spaces.
func bundleID(l string) bool {
	parts := strings.Split(l, ".")
	if len(parts) < 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.ContainsFunc(p, func(r rune) bool { return !(r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)) }) {
			return false
		}
	}
	return true
}
