package android

import (
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync/atomic"
)

// DefaultServerPort is the port the adb server listens on unless ANDROID_ADB_SERVER_PORT says
// otherwise.
const DefaultServerPort = 5037

// ServerAddr returns the address of the local adb server as the adb tool itself finds it:
// ANDROID_ADB_SERVER_ADDRESS (default 127.0.0.1) and ANDROID_ADB_SERVER_PORT (default 5037).
// An unparsable port falls back to the default, with a warning (once a process) on slog's
// default logger: ServerAddr is asked from places that have no logger of their own.
func ServerAddr() string {
	host := os.Getenv("ANDROID_ADB_SERVER_ADDRESS")
	if host == "" {
		host = "127.0.0.1"
	}
	port := DefaultServerPort
	if v := os.Getenv("ANDROID_ADB_SERVER_PORT"); v != "" {
		if p, err := strconv.Atoi(v); err == nil && p > 0 && p < 65536 {
			port = p
		} else if badPortWarned.CompareAndSwap(false, true) {
			slog.Warn("ANDROID_ADB_SERVER_PORT is not a port: using the adb server's default port; set it to a port (1-65535), "+
				"as adb itself wants it, or unset it", "ANDROID_ADB_SERVER_PORT", v, "port", DefaultServerPort)
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// badPortWarned says that a bad ANDROID_ADB_SERVER_PORT was warned of: ServerAddr runs for
// every watch, attach and device, and one warning says it.
var badPortWarned atomic.Bool
