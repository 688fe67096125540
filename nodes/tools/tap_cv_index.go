package tools

import (
	"fmt"

	"github.com/corral-farm/corral/vision"
)

// HttpRunner's general option index picks among tap_cv's matches in the order its finder
// answers them (uixt's GetUIResult takes the CV service's list as it comes, -1 the last, out
// of range as not found): here the worker's order, best first. So 0, the default, is still the
// best match, 1 the next best, -1 the weakest that passes the threshold.

// cvMatches is how many matches tap_cv asks the worker for, best first: its most. An index
// must count the same list whatever its value, and which are the few best depends on how many
// the worker looks for: asked for one, it can answer a close copy of the template before the
// template itself (TestWorkerTapCVIndex).
const cvMatches = 100

// pickMatch is the index-th of ms (negative: from the end), which are best first.
func pickMatch(ms []vision.Match, index int) (vision.Match, bool) {
	if index < 0 {
		index += len(ms)
	}
	if index < 0 || index >= len(ms) {
		return vision.Match{}, false
	}
	return ms[index], true
}

// whichMatch says which of the of matches was tapped, when index chose another than the best.
func whichMatch(index, of int) string {
	if index == 0 {
		return ""
	}
	n := index
	if n < 0 {
		n += of
	}
	return fmt.Sprintf(" (index %d: match %d of %d, best first)", index, n+1, of)
}
