package android

import (
	"bytes"
	"context"
	"net"
	"strconv"
	"testing"

	"github.com/electricbubble/gadb"

	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// gadbDevice is the same device as seen by gadb, for comparisons.
func gadbDevice(tb testing.TB, addr, serial string) gadb.Device {
	tb.Helper()
	host, portStr, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portStr)
	client, err := gadb.NewClientWith(host, port)
	if err != nil {
		tb.Fatal(err)
	}
	devices, err := client.DeviceList()
	if err != nil {
		tb.Fatal(err)
	}
	for _, d := range devices {
		if d.Serial() == serial {
			return d
		}
	}
	tb.Fatalf("gadb does not list %s", serial)
	return gadb.Device{}
}

// gadb's RunShellCommandWithBytes goes through shell:, which is binary-safe against this
// simulated device (and devices with Android 7+, which give shell: commands no pty); the driver
// uses exec: anyway, which is binary-safe on every Android. Both must give the same PNG here.
func TestScreencapBytesMatchGadb(t *testing.T) {
	dev, d := newDevice(t)
	g := gadbDevice(t, shared.srv.addr(), dev.Serial())
	viaShell, err := g.RunShellCommandWithBytes("screencap -p")
	if err != nil {
		t.Fatal(err)
	}
	viaExec, err := d.exec(context.Background(), "screenshot", "screencap -p", maxImageOutput, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(viaShell, viaExec) {
		t.Errorf("shell: gave %d bytes, exec: %d bytes, and they differ", len(viaShell), len(viaExec))
	}
	if !bytes.HasPrefix(viaExec, []byte("\x89PNG\r\n\x1a\n")) {
		t.Error("exec: did not give a PNG")
	}
}

// BenchmarkTap compares a tap through the driver with the same `input tap` sent by gadb
// straight to the adb server. The driver's extra cost is the get-state question after the
// stream ends (how it tells a finished command from a device that left).
func BenchmarkTap(b *testing.B) {
	dev, d := newDevice(b)
	g := gadbDevice(b, shared.srv.addr(), dev.Serial())
	ctx := context.Background()
	b.Run("driver", func(b *testing.B) {
		for b.Loop() {
			if err := d.Tap(ctx, device.Point{X: 540, Y: 1200}, 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gadb", func(b *testing.B) {
		for b.Loop() {
			if _, err := g.RunShellCommand("input tap 540 1200"); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkScreenshot compares the driver's screenshot (raw framebuffer pulled) with pulling
// the PNG through gadb, and the parts: the raw and PNG bytes alone, and the JPEG the node
// makes of the screenshot.
func BenchmarkScreenshot(b *testing.B) {
	dev, d := newDevice(b)
	g := gadbDevice(b, shared.srv.addr(), dev.Serial())
	ctx := context.Background()
	b.Run("driver", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.Screenshot(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jpeg", func(b *testing.B) {
		img, err := d.Screenshot(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := tools.EncodeJPEG(ctx, img, tools.MaxImageBytes); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw-bytes", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.exec(ctx, "screenshot", "screencap", maxImageOutput, framebufferSize); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("png-bytes", func(b *testing.B) {
		for b.Loop() {
			if _, err := d.exec(ctx, "screenshot", "screencap -p", maxImageOutput, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("gadb-bytes", func(b *testing.B) {
		for b.Loop() {
			if _, err := g.RunShellCommandWithBytes("screencap -p"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
