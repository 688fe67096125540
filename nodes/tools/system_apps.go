package tools

import (
	"slices"
	"strings"
)

// systemPackages are never force-quit: the system UI (lock screen, shade) is in front of them.
var systemPackages = []string{"android", "com.android.systemui"}

// isHomeApp guesses whether pkg is a home screen app (launcher), which force_quit leaves alone.
func isHomeApp(pkg string) bool {
	return strings.Contains(strings.ToLower(pkg), "launcher") || slices.Contains([]string{"com.miui.home", "com.huawei.android.launcher", "com.apple.springboard"}, pkg)
}
