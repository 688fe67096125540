package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/nodes/device"
)

// knownPlatforms are the platforms a platform argument may name: the seed's four, those the
// gateway was given drivers for, and any a device of the farm has; sorted.
func (g *Gateway) knownPlatforms() []string {
	known := []string{device.PlatformAndroid, device.PlatformIOS, device.PlatformWeb, device.PlatformArm}
	for _, p := range g.opts.Platforms {
		known = append(known, p.Name)
	}
	for _, d := range g.farm.Devices() {
		known = append(known, d.Platform)
	}
	slices.Sort(known)
	return slices.Compact(known)
}

// checkPlatform refuses a platform no device can have (a typo: "andriod"), which would
// otherwise match nothing and look like an empty farm. "" is any platform.
func (g *Gateway) checkPlatform(platform string) error {
	known := g.knownPlatforms()
	if platform == "" || slices.Contains(known, platform) {
		return nil
	}
	hint := ""
	if best, ok := nearest(platform, known); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Errorf("unknown platform %q%s: the platforms are %s", shorten(platform, 40), hint, strings.Join(known, ", "))
}

// nearest is the name closest to word by edit distance, if it is close enough to be a typo.
func nearest(word string, names []string) (string, bool) {
	best, bestDist := "", len(word)+1
	for _, n := range names {
		if d := editDistance(word, n); d < bestDist {
			best, bestDist = n, d
		}
	}
	return best, best != "" && bestDist <= max(2, len(word)/3)
}

// editDistance is the Levenshtein distance between a and b (bytes: platform names are ASCII).
func editDistance(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
