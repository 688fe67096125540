package agent

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxExpectRunes bounds a label worth checking for: a short one is a title or a button,
// a long one is content that may change.
const maxExpectRunes = 60

// labels reads the labels of an element listing (`id [kind] "label" [l,t,r,b] conf`), in
// order; lines in another form are skipped.
func labels(listing string) []string {
	var out []string
	for line := range strings.Lines(listing) {
		i := strings.Index(line, `] "`)
		if i < 0 {
			continue
		}
		q, err := strconv.QuotedPrefix(line[i+2:])
		if err != nil {
			continue
		}
		if l, err := strconv.Unquote(q); err == nil {
			if l = strings.TrimSpace(l); l != "" {
				out = append(out, l)
			}
		}
	}
	return out
}

// newLabel is the first short label after shows that before did not: what an action made
// appear, for a replayed test to wait for.
func newLabel(before, after string) string {
	old := map[string]bool{}
	for _, l := range labels(before) {
		old[l] = true
	}
	for _, l := range labels(after) {
		if !old[l] && utf8.RuneCountInString(l) <= maxExpectRunes {
			return l
		}
	}
	return ""
}
