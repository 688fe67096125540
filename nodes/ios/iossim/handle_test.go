package iossim

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	ios "github.com/danielpaulus/go-ios/ios"
)

// dialPort connects to a device port through usbmuxd, as go-ios's forwarders do.
func dialPort(h *Host, deviceID int, port uint16) (net.Conn, error) {
	c, err := net.Dial("tcp", h.Addr())
	if err != nil {
		return nil, err
	}
	if err := ios.NewUsbMuxConnection(ios.NewDeviceConnectionWithConn(c)).Connect(deviceID, port); err != nil {
		_ = c.Close()
		return nil, err
	}
	return c, nil
}

// wdaStatus is a stand-in for WebDriverAgent's /status.
var wdaStatus = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"value":{"ready":true,"path":%q}}`, r.URL.Path)
})

func TestHandle(t *testing.T) {
	h := startHost(t)
	d := newDevice(t, Config{})
	h.Attach(d)
	d.Handle(8100, wdaStatus)
	id := entry2(t, dialMux(t, h), d.UDID())

	client := &http.Client{Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return dialPort(h, id, 8100) },
	}}
	defer client.CloseIdleConnections()
	for range 2 { // the second request reuses the kept-alive connection
		resp, err := client.Get("http://wda/status")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"ready":true`) {
			t.Fatalf("GET /status: %d %s", resp.StatusCode, body)
		}
	}

	// An open connection, one request answered, then the app dies.
	c, err := dialPort(h, id, 8100)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "GET /session HTTP/1.1\r\nHost: wda\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("raw request: %v, %v", resp, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	d.Unhandle(8100)
	expectClosed(t, br, "an open connection after Unhandle")
	if _, err := dialPort(h, id, 8100); err == nil || !strings.Contains(err.Error(), "error code:3") {
		t.Fatalf("Connect after Unhandle: %v, want refused (3)", err)
	}

	d.Handle(8100, wdaStatus) // the app is back
	client.CloseIdleConnections()
	resp, err = client.Get("http://wda/status")
	if err != nil {
		t.Fatalf("after Handle again: %v", err)
	}
	resp.Body.Close()
}

// TestDetachClosesConnections: unplugging drops lockdown, service and app connections.
func TestDetachClosesConnections(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	h.Attach(d)
	d.Handle(8100, wdaStatus)
	dev := entry(t, d.UDID())
	ld, err := ios.ConnectLockdownWithSession(dev)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := ios.ConnectToService(dev, "com.apple.mobile.installation_proxy")
	if err != nil {
		t.Fatal(err)
	}
	app, err := dialPort(h, dev.DeviceID, 8100)
	if err != nil {
		t.Fatal(err)
	}
	defer app.Close()

	h.Detach(d.UDID())
	expectClosed(t, ld.Conn(), "lockdown after Detach")
	expectClosed(t, svc.Conn(), "installation_proxy after Detach")
	expectClosed(t, app, "port 8100 after Detach")
	if _, err := dialPort(h, dev.DeviceID, 8100); err == nil || !strings.Contains(err.Error(), "error code:2") {
		t.Fatalf("Connect to a detached device: %v, want bad device (2)", err)
	}
}

// TestServicePortIsOneShot: a StartService port takes one connection, as lockdownd's do.
func TestServicePortIsOneShot(t *testing.T) {
	h := startHost(t)
	withGoIOS(t, h)
	d := newDevice(t, Config{})
	h.Attach(d)
	dev := entry(t, d.UDID())
	resp, err := ios.StartService(dev, "com.apple.afc")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Port < firstDynamicPort || !resp.EnableServiceSSL {
		t.Fatalf("StartService: %+v, want a dynamic port with EnableServiceSSL", resp)
	}
	c, err := dialPort(h, dev.DeviceID, resp.Port)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := dialPort(h, dev.DeviceID, resp.Port); err == nil {
		t.Fatal("a second Connect to a service port succeeded")
	}
	if _, err := ios.StartService(dev, "com.apple.nope"); err == nil || !strings.Contains(err.Error(), "InvalidService") {
		t.Fatalf("StartService of an unknown service: %v", err)
	}
}
