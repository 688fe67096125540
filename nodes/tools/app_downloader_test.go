package tools

import (
	"strings"
	"testing"

	"github.com/corral-farm/corral/nodes/device"
)

func TestAppFileNameAndRedaction(t *testing.T) {
	for _, c := range []struct{ path, platform, want string }{
		{"/a/b/com.x.apk", device.PlatformAndroid, "com.x.apk"},
		{"/", device.PlatformAndroid, "app.apk"},
		{"", device.PlatformIOS, "app.ipa"},
		{"/a/.hidden", device.PlatformAndroid, "app.apk"},
		{"/a/we ird.apk", device.PlatformAndroid, "app.apk"},
		{"/a/" + strings.Repeat("x", 200), device.PlatformAndroid, "app.apk"},
	} {
		if got := appFileName(c.path, c.platform); got != c.want {
			t.Errorf("appFileName(%q) = %q, want %q", c.path, got, c.want)
		}
	}
	for in, want := range map[string]string{
		"https://user:pw@host/a.apk?sig=1#f": "https://host/a.apk (query and credentials hidden)",
		"http://host/a.apk":                  "http://host/a.apk",
	} {
		if got := redactURL(in); got != want {
			t.Errorf("redactURL(%q) = %q, want %q", in, got, want)
		}
	}
}
