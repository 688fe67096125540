package modelsim

import (
	"fmt"
	"strconv"
	"strings"
)

// BBox finds the element labelled label in the newest element listing the request carried
// (peek's lines: `id [kind] "label" [l,t,r,b] conf`) and returns its bbox, as a model that reads
// the listing picks what to tap. ok is false when the newest listing has no such element.
func (r Request) BBox(label string) (bbox [4]float64, ok bool) {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		listing := false
		for line := range strings.Lines(r.Messages[i].Text) {
			id, rest, found := strings.Cut(line, " [")
			if !found || len(id) < 2 || id[0] != 'e' {
				continue
			}
			if _, err := strconv.Atoi(id[1:]); err != nil {
				continue
			}
			listing = true
			if _, at, hit := strings.Cut(rest, "] "+strconv.Quote(label)+" ["); hit {
				if _, err := fmt.Sscanf(at, "%f,%f,%f,%f]", &bbox[0], &bbox[1], &bbox[2], &bbox[3]); err == nil {
					return bbox, true
				}
			}
		}
		if listing {
			return bbox, false
		}
	}
	return bbox, false
}
