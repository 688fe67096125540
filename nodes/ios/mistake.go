package ios

import "github.com/corral-farm/corral/nodes/device"

// mistake is an error of the caller's asking (a key an iPhone has not, an app it has not, a
// file that is no .ipa): it is device.ErrBadInput (errors.Is), so that the tools answer
// bad_input, the caller's mistake, and not driver_error, which counts against the device.
type mistake struct{ msg string }

func (m *mistake) Error() string { return m.msg }

func (m *mistake) Is(target error) bool { return target == device.ErrBadInput }

// Errors of the caller's asking, wrapped in a *device.Error.
var (
	// ErrNotInstalled is an app the phone does not have.
	ErrNotInstalled = &mistake{"not installed"}
	// ErrNoFocus is text typed (or ENTER, DEL, TAB pressed) with no keyboard up.
	ErrNoFocus = &mistake{"no text field has focus"}
	// errNoKey is a key an iPhone does not have.
	errNoKey = &mistake{"iPhones have no such key"}
	// errNotIPA is an app file that is no .ipa.
	errNotIPA = &mistake{"not an .ipa"}
	// errUnpack is an .ipa installd could not unpack: a damaged entry, one outside the archive.
	errUnpack = &mistake{"the .ipa cannot be unpacked"}
	// errBundleID is an .ipa whose app's bundle id no tool could name.
	errBundleID = &mistake{"so no tool could launch or remove the app by name"}
	// errSystemApp is a built-in app, which installation_proxy will not uninstall.
	errSystemApp = &mistake{"a built-in app iOS will not uninstall"}
	// errOffScreen is a point outside the screen.
	errOffScreen = &mistake{"off the screen"}
)
