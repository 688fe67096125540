package rig

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/device"
)

// A loaded host runs everything late: the controller's status reports, which the rig asks for
// on its own clock, and the probe's touch on its way back through the readback. A calibration
// then failed with "the phone felt no touch" after 3 s while the touch was on its way. This
// rig's host is made late on purpose: its controller's reports reach it at most 2.5 a second
// (a proxy drops the rest), and the first probe's touch comes 4 s late; the probe waits for it,
// as 24 reports take longer than that.
func TestProbeWaitsForALateTouchWhileReportsComeLate(t *testing.T) {
	tw, addr := servedTwin(t, 7)
	d := dialRig(t.Context(), t, tw, slowReports(t, addr, 400*time.Millisecond))
	lo, hi := tw.RoughArea()
	rb := lateFirstTouch{tw: tw, late: 4 * time.Second}
	cal, err := d.CalibrateWith(t.Context(), rb, Area{Min: lo, Max: hi}, nil)
	if err != nil {
		t.Fatalf("calibrating with the first touch 4 s late, the reports 2.5 a second at most: %v; want the probe to wait for it", err)
	}
	t.Logf("calibrated: %d probes, validation error %.2f mm", cal.Probes, cal.ValidationErrMM)
}

// A probe whose touch never comes (it missed the glass) still fails, saying so, while the
// controller answers: the wait is not the calibration's deadline, which a rig calibrating as
// its node starts does not have.
func TestProbeThatFeelsNothingFails(t *testing.T) {
	tw, addr := servedTwin(t, 7)
	d := dialRig(t.Context(), t, tw, addr)
	lo, hi := tw.RoughArea()
	_, err := d.CalibrateWith(t.Context(), lateFirstTouch{tw: tw, late: time.Hour}, Area{Min: lo, Max: hi}, nil)
	if err == nil || !strings.Contains(err.Error(), "probe 1 at") || !strings.Contains(err.Error(), "the phone felt no touch within") {
		t.Fatalf("calibrating while the phone feels nothing: %v; want probe 1 to say the phone felt no touch", err)
	}
	t.Log(err)
}

// lateFirstTouch is the twin's readback with its first touch delivered late.
type lateFirstTouch struct {
	tw   *twin.Twin
	late time.Duration
}

func (l lateFirstTouch) ShowCalibration(ctx context.Context) (<-chan geom.Point, device.Size, func(), error) {
	in, size, stop, err := l.tw.ShowCalibration(ctx)
	if err != nil {
		return nil, size, nil, err
	}
	out := make(chan geom.Point, 16)
	go func() {
		first := true
		for {
			select {
			case p := <-in:
				if first {
					first = false
					select {
					case <-time.After(l.late): // the fault: a touch on its way this long
					case <-ctx.Done():
						return
					}
				}
				out <- p
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, size, stop, nil
}

// slowReports serves a proxy of the controller at addr that passes at most one status report
// per gap to the rig (everything else as it comes), and returns its address.
func slowReports(t *testing.T, addr string, gap time.Duration) string {
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
			go func() { _, _ = io.Copy(ctl, rig) }()
			go func() {
				var last time.Time
				sc := bufio.NewScanner(ctl)
				for sc.Scan() {
					line := sc.Text()
					if strings.HasPrefix(line, "<") {
						if time.Since(last) < gap {
							continue
						}
						last = time.Now()
					}
					if _, err := io.WriteString(rig, line+"\r\n"); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// A readback whose stream ends mid-calibration (the page closed) fails the calibration saying
// so: its closed channel read as touches at (0, 0), and the drain before the next probe spun
// for ever.
func TestCalibrationWhoseReadbackEndsSaysSo(t *testing.T) {
	tw, addr := servedTwin(t, 7)
	d := dialRig(t.Context(), t, tw, addr)
	lo, hi := tw.RoughArea()
	failed := make(chan error, 1)
	go func() {
		_, err := d.CalibrateWith(t.Context(), endsAfterOneTouch{tw}, Area{Min: lo, Max: hi}, nil)
		failed <- err
	}()
	select {
	case err := <-failed:
		if err == nil || !strings.Contains(err.Error(), "probe 2 at") || !strings.Contains(err.Error(), "its stream ended") ||
			!strings.Contains(err.Error(), "keep the calibration page open") {
			t.Fatalf("calibrating while the readback's stream ends after one touch: %v; want probe 2 to say the stream ended", err)
		}
		t.Log(err)
	case <-time.After(2 * time.Minute): // a bound on a hang, not a wait: the answer ends the test
		t.Fatal("a calibration whose readback's stream ended did not end within 2 minutes")
	}
}

// endsAfterOneTouch is the twin's readback whose stream ends after its first touch.
type endsAfterOneTouch struct{ tw *twin.Twin }

func (e endsAfterOneTouch) ShowCalibration(ctx context.Context) (<-chan geom.Point, device.Size, func(), error) {
	in, size, stop, err := e.tw.ShowCalibration(ctx)
	if err != nil {
		return nil, size, nil, err
	}
	out := make(chan geom.Point, 1)
	go func() {
		defer close(out)
		select {
		case p := <-in:
			out <- p
		case <-ctx.Done():
		}
	}()
	return out, size, stop, nil
}
