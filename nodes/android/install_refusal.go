package android

import (
	"fmt"
	"io"
	"strings"

	"github.com/corral-farm/corral/nodes/ios/ipa"
)

// apkRefusals are the pm install failures that are the APK's fault, not the phone's: each with
// what to do. The others (no room, an internal error, a user or policy that said no) stay
// driver errors.
var apkRefusals = []struct{ code, hint string }{
	{"INSTALL_PARSE_FAILED_", "the file is not an APK Android can read: give app_install a .apk built for Android"},
	{"INSTALL_FAILED_INVALID_APK", "the file is not an APK Android can read: give app_install a .apk built for Android"},
	{"INSTALL_FAILED_OLDER_SDK", "the APK needs a newer Android than this phone's: pick a phone with a newer release, or build for this one"},
	{"INSTALL_FAILED_DEPRECATED_SDK_VERSION", "the APK targets an Android too old for this phone: build it for a newer target SDK"},
	{"INSTALL_FAILED_NO_MATCHING_ABIS", "the APK's native code is for another CPU ABI than this phone's: build it for this one (see its abi)"},
	{"INSTALL_FAILED_UPDATE_INCOMPATIBLE", "a package of that name is installed signed with another key, or comes with the phone: app_uninstall it first (a system app cannot be)"},
	{"INSTALL_FAILED_VERSION_DOWNGRADE", "a newer version of the app is installed: app_uninstall it first"},
	{"INSTALL_FAILED_TEST_ONLY", "the APK is a test-only build (android:testOnly), which pm install refuses: build it without"},
	{"INSTALL_FAILED_DUPLICATE_PERMISSION", "the APK declares a permission another installed app owns: uninstall that app, or rename the permission"},
	{"INSTALL_FAILED_CONFLICTING_PROVIDER", "the APK declares a content provider another installed app owns: uninstall that app, or rename the provider"},
	{"INSTALL_FAILED_MISSING_SHARED_LIBRARY", "the APK needs a shared library this phone does not have"},
}

// apkRefused says, for what `pm install` answered, whether the APK was refused for what it is,
// and what to do; "" otherwise.
func apkRefused(out string) string {
	for _, r := range apkRefusals {
		if strings.Contains(out, r.code) {
			return r.hint
		}
	}
	return ""
}

// refusedHint is what to do about a file pm install refused for what it is: hint, but for an
// iPhone's app (an .ipa, which pm calls no APK) that it is one, and where it installs.
func refusedHint(r io.ReaderAt, size int64, name, hint string) string {
	in, err := ipa.Read(r, size)
	if err != nil {
		return hint
	}
	return fmt.Sprintf("%s is an iOS app (%s), not an APK: this device runs Android; install it on an iOS device "+
		"(list_available_devices shows each device's platform), or give app_install the app's .apk", name, in.BundleID)
}
