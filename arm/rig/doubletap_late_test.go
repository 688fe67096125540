package rig

import (
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/grbl"
	"github.com/corral-farm/corral/nodes/device"
)

// A double tap sent line by line took the host's round trip between each two lines: a loaded
// host (./test at load 29) stretched the first touch's hold and the gap after it, and the
// twin saw a tap held 220 ms, then another tap, not a double tap. Here every byte the rig
// sends reaches its controller 30 ms late, as a late host's would; the double tap is still
// one, as the controller times both touches.
func TestDoubleTapOverALateLinkIsOne(t *testing.T) {
	r := startRig(t, 7, true) // calibrated over a quick link
	ctlAddr, err := r.tw.GRBL.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c, err := grbl.DialTCP(t.Context(), lateWrites(t, ctlAddr, 30*time.Millisecond), twinLink()...)
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Serial: r.tw.Phone.Info().Serial}, c, twinCamera{r.tw.Camera}, r.d.Calibration(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })

	n := len(r.tw.Phone.InputLog())
	if err := d.DoubleTap(context.Background(), device.Point{X: 540, Y: 1000}); err != nil {
		t.Fatal(err)
	}
	// Read as two taps, the first comes before the second touch's end; as one, one line.
	if got := r.waitLog(t, n); len(got) != 1 || !strings.HasPrefix(got[0], "doubletap ") {
		t.Fatalf("a double tap over a link 30 ms late: the phone got %q; want one double tap", got)
	}
	t.Logf("the phone got %q", r.tw.Phone.InputLog()[n:])
}

// lateWrites serves a proxy of the controller at addr that passes what the rig writes late
// by delay (what the controller writes as it comes), and returns its address.
func lateWrites(t *testing.T, addr string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	type chunk struct {
		at   time.Time
		data []byte
	}
	go func() {
		for {
			rig, err := ln.Accept()
			if err != nil {
				return
			}
			ctl, err := net.Dial("tcp", addr)
			if err != nil {
				_ = rig.Close()
				return
			}
			mu.Lock()
			conns = append(conns, rig, ctl)
			mu.Unlock()
			go func() { _, _ = io.Copy(rig, ctl) }()
			late := make(chan chunk, 1024)
			go func() {
				defer close(late)
				buf := make([]byte, 4096)
				for {
					n, err := rig.Read(buf)
					if n > 0 {
						late <- chunk{time.Now().Add(delay), slices.Clone(buf[:n])}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				for c := range late {
					time.Sleep(time.Until(c.at)) // the fault: the link's latency
					if _, err := ctl.Write(c.data); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}
