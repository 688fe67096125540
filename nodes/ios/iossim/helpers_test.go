package iossim

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	ios "github.com/danielpaulus/go-ios/ios"
	"github.com/sirupsen/logrus"
)

func TestMain(m *testing.M) {
	logrus.SetLevel(logrus.WarnLevel) // go-ios logs every TLS handshake failure at Info
	code := m.Run()
	if code == 0 {
		if stacks := waitNoLeaks(5 * time.Second); stacks != "" {
			fmt.Fprintf(os.Stderr, "iossim goroutines left after all tests:\n%s", stacks)
			code = 1
		}
	}
	os.Exit(code)
}

// testLog logs to stderr with -v, else nowhere (goroutines may log after a test ends).
func testLog() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// startHost starts a usbmuxd on a free port, closed when the test ends.
func startHost(t *testing.T) *Host {
	t.Helper()
	h, err := Start("127.0.0.1:0", testLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = h.Close() })
	return h
}

func newDevice(t *testing.T, cfg Config) *Device {
	t.Helper()
	d, err := NewDevice(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// withGoIOS points go-ios's env-reading functions at h (tests using it cannot be parallel).
func withGoIOS(t *testing.T, h *Host) {
	t.Setenv("USBMUXD_SOCKET_ADDRESS", h.Addr())
}

// entry finds a device in go-ios's ListDevices.
func entry(t *testing.T, udid string) ios.DeviceEntry {
	t.Helper()
	list, err := ios.ListDevices()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range list.DeviceList {
		if e.Properties.SerialNumber == udid {
			return e
		}
	}
	t.Fatalf("ListDevices has no %s: %+v", udid, list)
	return ios.DeviceEntry{}
}

// muxConn opens a go-ios usbmux connection to h, closed when the test ends.
func dialMux(t *testing.T, h *Host) *ios.UsbMuxConnection {
	t.Helper()
	c, err := net.Dial("tcp", h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	mux := ios.NewUsbMuxConnection(ios.NewDeviceConnectionWithConn(c))
	t.Cleanup(func() { _ = c.Close() })
	return mux
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// within runs f and fails the test if it does not return within 5 s.
func within[T any](t *testing.T, what string, f func() T) T {
	t.Helper()
	ch := make(chan T, 1)
	go func() { ch <- f() }()
	select {
	case v := <-ch:
		return v
	case <-time.After(5 * time.Second):
		t.Fatalf("timed out: %s", what)
		panic("unreachable")
	}
}

// expectClosed checks that the peer closes c: a read ends with an error within 5 s.
func expectClosed(t *testing.T, c io.Reader, what string) {
	t.Helper()
	err := within(t, what, func() error {
		buf := make([]byte, 512)
		for {
			if _, err := c.Read(buf); err != nil {
				return err
			}
		}
	})
	if err == nil {
		t.Fatalf("%s: still open", what)
	}
}

// iossimGoroutines are the stacks of goroutines running this package's (non-test) code.
func iossimGoroutines() string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, line := range strings.Split(g, "\n") {
			if strings.Contains(line, "/nodes/ios/iossim/") && !strings.Contains(line, "_test.go") {
				out = append(out, g)
				break
			}
		}
	}
	return strings.Join(out, "\n\n")
}

// waitNoLeaks waits until no goroutine runs this package's code, and returns the stacks of
// those left when the wait is over.
func waitNoLeaks(wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		s := iossimGoroutines()
		if s == "" || time.Now().After(deadline) {
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
}
