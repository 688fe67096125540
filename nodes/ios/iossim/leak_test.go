package iossim

import (
	"context"
	"io"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"

	ios "github.com/danielpaulus/go-ios/ios"
	"github.com/danielpaulus/go-ios/ios/afc"
)

// TestCloseLeavesNoGoroutines opens one of every kind of connection, leaves them all open,
// and closes the host: every goroutine of the host, and of net/http serving a port, ends.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	if s := waitNoLeaks(5 * time.Second); s != "" {
		t.Fatalf("goroutines left by earlier tests:\n%s", s)
	}
	before := runtime.NumGoroutine()
	h, err := Start("127.0.0.1:0", testLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("USBMUXD_SOCKET_ADDRESS", h.Addr())
	d := newDevice(t, Config{})
	h.Attach(d)
	d.Handle(8100, wdaStatus)
	dev := entry(t, d.UDID())

	idle, err := net.Dial("tcp", h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	next, closeListen, err := ios.Listen()
	if err != nil {
		t.Fatal(err)
	}
	defer closeListen()
	if m, err := next(); err != nil || !m.DeviceAttached() {
		t.Fatalf("Listen: %+v, %v", m, err)
	}
	ld, err := ios.ConnectLockdownWithSession(dev)
	if err != nil {
		t.Fatal(err)
	}
	fs, err := afc.New(dev)
	if err != nil {
		t.Fatal(err)
	}
	defer fs.Close()
	if err := fs.MkDir("x"); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return dialPort(h, dev.DeviceID, 8100) },
	}}
	resp, err := client.Get("http://wda/status")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close() // the connection stays open, idle in the client's pool
	// And a lockdown connection nobody talks to.
	if _, err := dialPort(h, dev.DeviceID, 62078); err != nil {
		t.Fatal(err)
	}

	if err := h.Close(); err != nil {
		t.Fatal(err)
	}
	if err := h.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if s := waitNoLeaks(5 * time.Second); s != "" {
		t.Fatalf("goroutines left after Close:\n%s", s)
	}
	if _, err := next(); err == nil {
		t.Error("Listen read after Close succeeded")
	}
	expectClosed(t, ld.Conn(), "lockdown after Close")
	expectClosed(t, idle, "an idle usbmuxd connection after Close")
	if _, err := net.Dial("tcp", h.Addr()); err == nil {
		t.Error("usbmuxd still accepts connections after Close")
	}
	// The client's kept-alive connection sees the close; then its goroutines end too.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(10 * time.Millisecond)
	}
}
