package rig

import "strings"

// KeyGesture says what PressKey(key) does on the glass, for the tools' messages: the rig has
// no buttons, so "pressed HOME" would not be what happened. "" for a key it cannot make.
func (d *Driver) KeyGesture(key string) string {
	switch strings.TrimPrefix(strings.ToUpper(key), "KEYCODE_") {
	case "HOME":
		return "swiped up from the bottom edge (the iPhone's home gesture; the arm has no HOME button to press)"
	case "BACK":
		return "swiped right from the left edge (the iPhone's back gesture; the arm has no BACK button to press)"
	case "WAKEUP":
		return "tapped the screen if it was dark (an iPhone wakes to a tap); a lit screen is left alone"
	}
	return ""
}
