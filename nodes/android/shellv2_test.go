package android

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
)

// Devices with and without shell protocol v2: the driver uses v2 where the device offers it,
// commands land and answer the same, and a device that dies mid-command is reported as
// disconnected either way.
func TestShellProtocols(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []adbsim.Option
		v2   bool
	}{{"v2", nil, true}, {"v1", []adbsim.Option{adbsim.WithoutShellV2()}, false}} {
		t.Run(tc.name, func(t *testing.T) {
			dev, d := newDevice(t, append(tc.opts, adbsim.WithInputDevicesDenied())...) // taps are `input` commands
			if d.shellV2 != tc.v2 {
				t.Fatalf("shellV2 %v, want %v", d.shellV2, tc.v2)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := d.Health(ctx); err != nil {
				t.Fatal(err)
			}
			if out, err := d.shell(ctx, "test", "echo a; echo b >&2; false"); err != nil || out != "a\nb\n" {
				t.Errorf("shell answered %q, %v; want both streams and no error for a failing status", out, err)
			}
			if got := newCommands(t, dev, func() error { return d.Tap(ctx, device.Point{X: 3, Y: 4}, 0) }); len(got) != 1 || got[0] != "input tap 3 4" {
				t.Errorf("commands %q", got)
			}
			dev.SetDelay(time.Minute)
			errc := make(chan error, 1)
			before := len(dev.Commands())
			go func() { errc <- d.Tap(context.Background(), device.Point{X: 5, Y: 6}, 0) }()
			waitNewCommand(t, dev, before, "input tap 5 6")
			dev.Kill()
			select {
			case err := <-errc:
				if !errors.Is(err, ErrDisconnected) || !strings.Contains(err.Error(), "device disconnected") {
					t.Errorf("error %v, want device disconnected", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("still running 5s after the device died")
			}
		})
	}
}

func TestReadShellV2(t *testing.T) {
	pkt := func(id byte, data string) []byte {
		return append([]byte{id, byte(len(data)), 0, 0, 0}, data...)
	}
	join := func(ps ...[]byte) []byte { return bytes.Join(ps, nil) }
	for _, tc := range []struct {
		name string
		in   []byte
		out  string
		done bool
		err  bool
	}{
		{"output and status", join(pkt(1, "hi\n"), pkt(2, "oops\n"), pkt(3, "\x01")), "hi\noops\n", true, false},
		{"status only", pkt(3, "\x00"), "", true, false},
		{"cut before the status", pkt(1, "hi"), "hi", false, false},
		{"cut inside a packet", pkt(1, "hello")[:7], "", false, false},
		{"window size skipped", join(pkt(5, "abcd"), pkt(1, "x"), pkt(3, "\x00")), "x", true, false},
		{"over the limit", pkt(1, strings.Repeat("y", 40)), "", false, true},
		{"empty exit", pkt(3, ""), "", false, true},
	} {
		out, done, err := readShellV2(bytes.NewReader(tc.in), 32)
		if string(out) != tc.out || done != tc.done || (err != nil) != tc.err {
			t.Errorf("%s: %q, %v, %v; want %q, %v, error %v", tc.name, out, done, err, tc.out, tc.done, tc.err)
		}
	}
}

func FuzzReadShellV2(f *testing.F) {
	f.Add([]byte{1, 2, 0, 0, 0, 'h', 'i', 3, 1, 0, 0, 0, 0})
	f.Add([]byte{5, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _, err := readShellV2(bytes.NewReader(in), 1<<10)
		if err == nil && len(out) > 1<<10 {
			t.Errorf("%d bytes over the limit", len(out))
		}
	})
}
