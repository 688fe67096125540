package android

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A named device's errors name it as the caller does (android-sim-n1-01), not by its adb serial
// (127.0.0.1:<port>), which the caller never saw.
func TestNamedDeviceErrorsSayItsName(t *testing.T) {
	server := privateServer(t)
	dev := startDevice(t)
	server.connect(t, dev)
	const name = "android-sim-n1-01"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg := newRegistry()
	done := make(chan error, 1)
	go func() {
		done <- Attach(ctx, reg, server.addr(), nil, WithSerialNames(map[string]string{dev.Serial(): name}))
	}()
	defer func() { cancel(); <-done }()

	reg.waitFor(t, 20*time.Second, "the device added under its name", func(r *registry) bool { return r.drivers[name] != nil })
	reg.mu.Lock()
	d := reg.drivers[name].(*Driver)
	reg.mu.Unlock()
	callCtx, callCancel := context.WithTimeout(ctx, 20*time.Second)
	defer callCancel()
	err := d.LaunchApp(callCtx, "com.example.missing")
	if err == nil {
		t.Fatal("launching an app that is not installed succeeded")
	}
	if msg := err.Error(); !strings.Contains(msg, name) || strings.Contains(msg, dev.Serial()) {
		t.Errorf("the error %q should name the device %s, not its adb serial %s", msg, name, dev.Serial())
	}
}
