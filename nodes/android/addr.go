package android

import (
	"net"
	"os"
	"strconv"
)

// DefaultServerPort is the port the adb server listens on unless ANDROID_ADB_SERVER_PORT says
// otherwise.
const DefaultServerPort = 5037

// ServerAddr returns the address of the local adb server as the adb tool itself finds it:
// ANDROID_ADB_SERVER_ADDRESS (default 127.0.0.1) and ANDROID_ADB_SERVER_PORT (default 5037).
// An unparsable port falls back to the default.
func ServerAddr() string {
	host := os.Getenv("ANDROID_ADB_SERVER_ADDRESS")
	if host == "" {
		host = "127.0.0.1"
	}
	port := DefaultServerPort
	if p, err := strconv.Atoi(os.Getenv("ANDROID_ADB_SERVER_PORT")); err == nil && p > 0 && p < 65536 {
		port = p
	}
	return net.JoinHostPort(host, strconv.Itoa(port))
}
