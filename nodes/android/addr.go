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
// An unparsable port falls back to the default; a node warns of it (setup.Attach).
func ServerAddr() string {
	addr, _ := serverAddr()
	return addr
}

// serverAddr is ServerAddr, and ANDROID_ADB_SERVER_PORT's value when it is set but not a port
// (the address then has the default port).
func serverAddr() (addr, badPort string) {
	host := os.Getenv("ANDROID_ADB_SERVER_ADDRESS")
	if host == "" {
		host = "127.0.0.1"
	}
	port := DefaultServerPort
	if v := os.Getenv("ANDROID_ADB_SERVER_PORT"); v != "" {
		if p, err := strconv.Atoi(v); err == nil && p > 0 && p < 65536 {
			port = p
		} else {
			badPort = v
		}
	}
	return net.JoinHostPort(host, strconv.Itoa(port)), badPort
}
