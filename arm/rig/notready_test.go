package rig_test

import (
	"flag"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// A rig of a rigs file that cannot calibrate at start (its readback points at a closed port)
// shows offline with why while its node tries again, as a rig whose link was lost does; it was
// not listed at all. Once it can, it joins online.
func TestRigNotReadyShowsOfflineWithWhy(t *testing.T) {
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
	cam := httptest.NewServer(mux)
	t.Cleanup(cam.Close)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	readback := closed.Addr().String()
	_ = closed.Close() // a port nothing listens on

	lo, hi := tw.RoughArea()
	doc := "rigs:\n  - serial: bench-arm-1\n    grbl: tcp://" + addr + "\n    camera: " + cam.URL + "/camera\n    readback: http://" + readback + "/calibration\n" +
		"    screen_area: [" + ftoa(lo.X) + ", " + ftoa(lo.Y) + ", " + ftoa(hi.X) + ", " + ftoa(hi.Y) + "]\n"
	attachRigsFile(t, f, doc)

	var d broker.DeviceEntry
	farmtest.Eventually(t, 30*time.Second, func() bool {
		var ok bool
		d, ok = f.Gateway().Client.Device("bench-arm-1")
		return ok && d.State == broker.StateOffline
	}, "the rig that cannot calibrate listed offline")
	for _, want := range []string{"arm rig not ready, trying again every 5s", readback} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("the rig shows offline with reason %q: no %q", d.Reason, want)
		}
	}
	if d.Platform != device.PlatformArm || d.Node != "n1" {
		t.Errorf("the rig shows as %+v", d)
	}

	// An emergency_stop of the rig meanwhile is kept (its node keeps the halt of a rig gone):
	// at its next try the rig joins held halted, not calibrating (which would move the
	// gantry) until a person has recovered it.
	var halt struct{ Halted bool }
	farmtest.Structured(t, farmtest.MustCall(t, f.Client("operator"), "emergency_stop", map[string]any{"serial": "bench-arm-1"}), &halt)
	if !halt.Halted {
		t.Error("emergency_stop of the rig that is not ready did not keep its halt")
	}
	farmtest.Eventually(t, time.Minute, func() bool {
		d, _ = f.Gateway().Client.Device("bench-arm-1")
		stop, ok := device.ParseStop(d.Reason)
		return d.State == broker.StateUnhealthy && ok && strings.Contains(stop.By, "operator") && !stop.At.IsZero()
	}, "the rig joined, held halted")
}

func ftoa(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// attachRigsFile serves the rigs of doc, a rigs file, on f's node n1 until the test ends.
func attachRigsFile(t *testing.T, f *farmtest.Farm, doc string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "rigs.yaml")
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	att := rig.Platform().Flags(fs)
	if err := fs.Parse([]string{"--arm", file}); err != nil {
		t.Fatal(err)
	}
	stop, err := att.Attach(t.Context(), f.NodeRegistry("n1"), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
}
