package mcp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/corral-farm/corral/internal/typo"
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
	if best, ok := typo.Nearest(platform, known); ok {
		hint = fmt.Sprintf(" (did you mean %q?)", best)
	}
	return fmt.Errorf("unknown platform %q%s: the platforms are %s", shorten(platform, 40), hint, strings.Join(known, ", "))
}
