package rig_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// gatedReadback is a twin's calibration readback whose requests wait until the test opens
// the gate (or the request ends): a start-up calibration holds there, so that the test acts
// while it runs. Requests answered 503 first (refuse) fail the calibrations they start.
type gatedReadback struct {
	next   http.Handler
	gate   chan struct{}
	refuse int64
	hits   atomic.Int64
}

func (g *gatedReadback) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.hits.Add(1) <= g.refuse {
		http.Error(w, "not yet", http.StatusServiceUnavailable)
		return
	}
	select {
	case <-g.gate:
	case <-r.Context().Done():
		return
	}
	g.next.ServeHTTP(w, r)
}

// startTwinRig starts a twin and a farm whose node n1 drives it by a rigs file (serial
// bench-arm-1, its controller over TCP), its readback served through wrap.
func startTwinRig(t *testing.T, wrap func(tw *twin.Twin, h http.Handler) http.Handler) (*farmtest.Farm, *twin.Twin) {
	t.Helper()
	return startTwinRigLinked(t, "20s", wrap)
}

// startTwinRigLinked is startTwinRig with the rig's link_timeout.
func startTwinRigLinked(t *testing.T, linkTimeout string, wrap func(tw *twin.Twin, h http.Handler) http.Handler) (*farmtest.Farm, *twin.Twin) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Quiet: true, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 3, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })
	addr, err := tw.GRBL.ServeTCP("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/camera", tw.Camera.Handler())
	mux.Handle("/calibration", wrap(tw, tw.ReadbackHandler()))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	lo, hi := tw.RoughArea()
	doc := "rigs:\n  - serial: bench-arm-1\n    grbl: tcp://" + addr + "\n    camera: " + srv.URL + "/camera\n    readback: " + srv.URL + "/calibration\n" +
		"    link_timeout: " + linkTimeout + "\n    screen_area: [" + ftoa(lo.X) + ", " + ftoa(lo.Y) + ", " + ftoa(hi.X) + ", " + ftoa(hi.Y) + "]\n"
	attachRigsFile(t, f, doc)
	return f, tw
}

// stopAndWaitHalted calls emergency_stop on the rig as the operator and waits until it shows
// halted by the operator: unhealthy with the stop's reason, not online.
func stopAndWaitHalted(t *testing.T, f *farmtest.Farm) {
	t.Helper()
	// A stop the controller did not confirm (its link lost on a loaded machine) is an error
	// that still holds the rig: halted either way.
	res, err := farmtest.TryCall(t, f.Client("operator"), "emergency_stop", map[string]any{"serial": "bench-arm-1"})
	if err != nil {
		t.Fatal(err)
	}
	var halt struct{ Halted bool }
	farmtest.Structured(t, res, &halt)
	if !halt.Halted {
		t.Fatalf("emergency_stop of the rig calibrating at start did not halt it: %s", farmtest.Text(res))
	}
	var d broker.DeviceEntry
	farmtest.Eventually(t, time.Minute, func() bool {
		d, _ = f.Gateway().Client.Device("bench-arm-1")
		stop, ok := device.ParseStop(d.Reason)
		return d.State == broker.StateUnhealthy && ok && strings.Contains(stop.By, "operator")
	}, "the rig stopped while it calibrated shows halted")
}

// A rig calibrating for the first time at its node's start is in the farm meanwhile,
// unhealthy "calibrating", and emergency_stop halts it: it was in no list, and the stop was
// refused as unknown_device while the finger probed.
func TestRigCalibratingAtStartTakesEmergencyStop(t *testing.T) {
	rb := &gatedReadback{gate: make(chan struct{})}
	f, _ := startTwinRig(t, func(_ *twin.Twin, h http.Handler) http.Handler { rb.next = h; return rb })
	t.Cleanup(func() { close(rb.gate) })

	farmtest.Eventually(t, time.Minute, func() bool {
		d, ok := f.Gateway().Client.Device("bench-arm-1")
		return ok && d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "calibrating")
	}, "the rig calibrating at start listed unhealthy, calibrating")
	stopAndWaitHalted(t, f)
}

// A rig whose first calibration failed is calibrated again; an emergency_stop during that
// one stops it and holds it halted. The stop went to the stand-in of the rig not ready
// (notready.go): it answered halted, but the probes went on and the rig came online.
func TestRigRecalibratingAtStartStaysStopped(t *testing.T) {
	rb := &gatedReadback{gate: make(chan struct{}), refuse: 1}
	f, _ := startTwinRig(t, func(_ *twin.Twin, h http.Handler) http.Handler { rb.next = h; return rb })

	farmtest.Eventually(t, 2*time.Minute, func() bool { return rb.hits.Load() >= 2 }, "the rig calibrating a second time")
	stopAndWaitHalted(t, f)
	close(rb.gate) // a calibration still under way goes on now
	d, _ := f.Gateway().Client.Device("bench-arm-1")
	if d.State == broker.StateOnline {
		t.Fatalf("the rig stopped while it calibrated is online: %+v", d)
	}
}

// A hard-limit alarm during a rig's calibration at start holds it, as during arm_calibrate:
// unhealthy with the alarm's words until arm_recover. It was tried again, which reset the
// controller, calibrated (the gantry moving) and brought the rig online with no one having
// looked at it.
func TestRigAlarmWhileCalibratingAtStartIsHeld(t *testing.T) {
	f, _ := startTwinRig(t, func(tw *twin.Twin, h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			tw.GRBL.InjectAlarm(1) // as the calibration starts: a limit switch tripped
			h.ServeHTTP(w, r)
		})
	})
	var d broker.DeviceEntry
	defer func() {
		if t.Failed() {
			t.Logf("the rig shows %s: %s", d.State, d.Reason)
		}
	}()
	farmtest.Eventually(t, 2*time.Minute, func() bool {
		d, _ = f.Gateway().Client.Device("bench-arm-1")
		return d.State == broker.StateUnhealthy && strings.Contains(d.Reason, "Hard limit") && strings.Contains(d.Reason, "arm_recover")
	}, "the rig alarmed while it calibrated shows held in alarm")
}
