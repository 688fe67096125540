package web

import (
	"fmt"
	"slices"
	"strings"
)

// Profile is what a browser device emulates: its viewport in CSS pixels, its device pixel
// ratio, whether it is a touch device with a mobile viewport, and its user agent.
type Profile struct {
	Name          string
	Width, Height int64 // CSS pixels
	DPR           float64
	Mobile        bool // mobile viewport, touch events
	UserAgent     string
}

// Profiles are the named profiles: a phone (an iPhone 13's 390×844 at 3×), a tablet and a
// desktop.
var Profiles = []Profile{
	{Name: "phone", Width: 390, Height: 844, DPR: 3, Mobile: true,
		UserAgent: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	{Name: "android", Width: 412, Height: 915, DPR: 2.625, Mobile: true,
		UserAgent: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/148.0.0.0 Mobile Safari/537.36"},
	{Name: "tablet", Width: 820, Height: 1180, DPR: 2, Mobile: true,
		UserAgent: "Mozilla/5.0 (iPad; CPU OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1"},
	{Name: "desktop", Width: 1280, Height: 800, DPR: 1},
}

// ProfileNamed returns the profile called name.
func ProfileNamed(name string) (Profile, error) {
	i := slices.IndexFunc(Profiles, func(p Profile) bool { return p.Name == name })
	if i < 0 {
		names := make([]string, len(Profiles))
		for k, p := range Profiles {
			names[k] = p.Name
		}
		return Profile{}, fmt.Errorf("web: no profile %q; the profiles are %s", name, strings.Join(names, ", "))
	}
	return Profiles[i], nil
}

// pixels is the screen in device pixels.
func (p Profile) pixels() (w, h int) {
	return int(float64(p.Width)*p.DPR + 0.5), int(float64(p.Height)*p.DPR + 0.5)
}
