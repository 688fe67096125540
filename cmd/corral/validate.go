package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/corral-farm/corral/nodes/ios"
	"github.com/corral-farm/corral/nodes/web"
)

// The values a start would refuse, or take for something else than was meant (a negative
// count as none, a zero lease TTL as the default), are refused before anything starts, by the
// same checks for --check-config and for the start: each names the flag, what is wrong and
// what it takes.

// checkListen checks a listen address: HOST:PORT, the port a number from 0 (any free port) to
// 65535; an empty host is every interface. example is one to give. Its refusals, and those of
// the checks below, are badValues.
func checkListen(name, addr, example string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		why := err.Error()
		var ae *net.AddrError
		if errors.As(err, &ae) {
			why = ae.Err
		}
		return badValue(fmt.Errorf("%s %q: give HOST:PORT, e.g. %s (%s)", name, addr, example, why))
	}
	if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		return badValue(fmt.Errorf("%s %q: port %q is not a port: give a number from 1 to 65535 (0: any free port), e.g. %s", name, addr, port, example))
	}
	return nil
}

// checkNATSPort checks the port of an embedded NATS: -1 (any free port) or 1 to 65535.
func checkNATSPort(port int) error {
	if port == -1 || port >= 1 && port <= 65535 {
		return nil
	}
	return badValue(fmt.Errorf("--nats-port %d: not a port: give a number from 1 to 65535, or -1 for any free port", port))
}

// checkData checks the data directory of an embedded NATS: "" would put its lock, JetStream
// store and credentials in the current directory.
func checkData(data string) error {
	if data == "" {
		return badValue(errors.New(`--data "": give the directory for the embedded NATS's data, e.g. --data data (it holds corral.lock, jetstream/ and nats/)`))
	}
	if st, err := os.Stat(data); err == nil && !st.IsDir() {
		return badValue(fmt.Errorf("--data %s is a file, not a directory: give a directory (made if missing) for corral.lock, jetstream/ and nats/", data))
	}
	return nil
}

// checkPlatformFlags checks the flags the platforms define on fs (android.Platform and the
// others), those of them fs has.
func checkPlatformFlags(fs *flag.FlagSet) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	for _, name := range []string{"sim-android", "sim-ios", "sim-arm", "web", "sim-web", "web-max"} {
		if n, ok := flagValue[int](fs, name); ok && n < 0 {
			bad("--%s %d: give how many to start, 0 or more", name, n)
		}
	}
	if d, ok := flagValue[time.Duration](fs, "web-idle"); ok && d <= 0 {
		bad("--web-idle %s: give a positive duration, e.g. 5m", d)
	}
	if d, ok := flagValue[time.Duration](fs, "sim-android-input-startup"); ok && d < 0 {
		bad("--sim-android-input-startup %s: give a duration of 0 (none) or more, e.g. 150ms", d)
	}
	if p, ok := flagValue[uint](fs, "wda-port"); ok && (p < 1 || p > 65535) {
		bad("--wda-port %d: not a port: give a number from 1 to 65535 (WebDriverAgent's is 8100)", p)
	}
	if r, ok := flagValue[float64](fs, "wda-rate"); ok && (!(r > 0) || math.IsInf(r, 0)) {
		bad("--wda-rate %v: give the requests a second a device takes, a positive number, e.g. 10", r)
	}
	if a, ok := flagValue[string](fs, "adb"); ok && a != "auto" && a != "off" && a != "" {
		if err := checkDial(a); err != nil {
			bad("--adb %q: give auto, off or the adb server's HOST:PORT, e.g. 127.0.0.1:5037 (%v)", a, err)
		}
	}
	if a, ok := flagValue[string](fs, "usbmuxd"); ok {
		if err := checkUsbmuxd(a); err != nil {
			bad("%w", err)
		}
	}
	if l, ok := flagValue[string](fs, "wda-launch"); ok && l != "xctest" && l != "none" && l != "" {
		if err := ios.CheckLaunchCommand(l); err != nil {
			bad("--wda-launch %q: %w (or xctest, or none)", l, err)
		}
	}
	if p, ok := flagValue[string](fs, "web-profile"); ok {
		if _, err := web.ProfileNamed(p); err != nil {
			bad("--web-profile %q: %w", p, err)
		}
	}
	if a, ok := flagValue[string](fs, "web-allow"); ok {
		if _, err := web.ParseHostPolicy(a); err != nil {
			bad("--web-allow: %w", err)
		}
	}
	errs = append(errs, checkWebFlags(fs)) // the web flags that contradict each other
	return badValue(errors.Join(errs...))
}

// checkUsbmuxd checks --usbmuxd, and under auto the USBMUXD_SOCKET_ADDRESS it then reads.
func checkUsbmuxd(a string) error {
	const takes = "give auto, off, usbmuxd's socket path (e.g. /var/run/usbmuxd) or its HOST:PORT (e.g. 127.0.0.1:27015)"
	switch a {
	case "off", "":
		return nil
	case "auto":
		env := os.Getenv("USBMUXD_SOCKET_ADDRESS")
		if err := checkMux(env); env != "" && err != nil {
			return fmt.Errorf("USBMUXD_SOCKET_ADDRESS %q (read under --usbmuxd auto): give a socket path or HOST:PORT (%v)", env, err)
		}
		return nil
	}
	if err := checkMux(a); err != nil {
		return fmt.Errorf("--usbmuxd %q: %s (%v)", a, takes, err)
	}
	return nil
}

// checkMux checks a usbmuxd address as go-ios reads it (ios.ParseMux): a socket path, or
// HOST:PORT to dial.
func checkMux(addr string) error {
	m := ios.ParseMux(addr)
	if m.Network() == "tcp" {
		return checkDial(m.String())
	}
	if strings.TrimSpace(m.String()) == "" {
		return errors.New("no socket path")
	}
	return nil
}

// checkDial checks an address to dial: HOST:PORT with a port from 1 to 65535.
func checkDial(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		var ae *net.AddrError
		if errors.As(err, &ae) {
			return errors.New(ae.Err)
		}
		return err
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("port %q is not a port", port)
	}
	if host == "" {
		return errors.New("missing host")
	}
	return nil
}

// flagValue is the value of fs's flag name, false when fs has no such flag of type T.
func flagValue[T any](fs *flag.FlagSet, name string) (T, bool) {
	var zero T
	fl := fs.Lookup(name)
	if fl == nil {
		return zero, false
	}
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return zero, false
	}
	v, ok := g.Get().(T)
	return v, ok
}

// tcpPort says whether port is a TCP port to dial: a number from 1 to 65535.
func tcpPort(port string) bool {
	p, err := strconv.Atoi(port)
	return err == nil && p >= 1 && p <= 65535
}
