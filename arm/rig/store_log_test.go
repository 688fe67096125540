package rig

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/internal/logtest"
	"github.com/corral-farm/corral/nodes/device"
)

// emptyCalibrations is a registry that keeps calibrations and has none yet (a new farm).
type emptyCalibrations struct{}

func (emptyCalibrations) AddDriver(device.Driver)                               {}
func (emptyCalibrations) RemoveDevice(string, string)                           {}
func (emptyCalibrations) SaveCalibration(context.Context, string, []byte) error { return nil }
func (emptyCalibrations) LoadCalibration(context.Context, string) ([]byte, error) {
	return nil, nil
}

// A rig of a rigs file names itself once in the lines it logs as it calibrates: the rig's
// logger already says which rig it is (`rig=arm-twin-1 rig=arm-twin-1` was logged).
func TestRigsFileRigIsNamedOnceWhenCalibrating(t *testing.T) {
	spec := twinRigSpec(t)

	var out logtest.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		keepRig(ctx, emptyCalibrations{}, spec, slog.New(slog.NewTextHandler(&out, nil)))
	}()
	t.Cleanup(func() { cancel(); <-done })

	// Connecting (a controller reset, the camera's stream) comes first: a loaded machine under
	// the race detector took more than waitFor's 10 s in a full run.
	deadline := time.Now().Add(time.Minute)
	for out.Line("arm rig: calibrating") == "" {
		if time.Now().After(deadline) {
			t.Fatalf("the rig did not start calibrating within a minute; it logged:\n%s", out.String())
		}
		time.Sleep(5 * time.Millisecond) // polling a condition
	}
	line := out.Line("arm rig: calibrating")
	if n := strings.Count(line, "rig=arm-twin-1"); n != 1 {
		t.Fatalf("the rig is named %d times, want once: %s", n, line)
	}
}

// servedDrivers is a registry that keeps no calibrations and hands over each rig it is given.
type servedDrivers struct {
	emptyCalibrations
	added chan *Driver
}

func (r servedDrivers) AddDriver(d device.Driver) {
	if rd, ok := d.(*Driver); ok { // not a rig standing for one not ready (notready.go)
		r.added <- rd
	}
}

// leftHalted is servedDrivers keeping a halt of every rig from before: a rig is served halted
// and uncalibrated, at once.
type leftHalted struct{ servedDrivers }

func (leftHalted) LoadHalt(context.Context, string) (string, error) { return "left halted", nil }
func (leftHalted) SaveHalt(context.Context, string, string) error   { return nil }

// haltAndRecover logs the driver's own lines: "rig halted", "rig recovered".
func haltAndRecover(t *testing.T, d *Driver) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := d.Halt(ctx, device.Stop{By: "alice", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if err := d.Recover(ctx); err != nil {
		t.Fatal(err)
	}
}

// checkNamedOnce fails unless each of want was logged and every line names the rig serial
// exactly once.
func checkNamedOnce(t *testing.T, out *logtest.Buffer, serial string, want ...string) {
	t.Helper()
	for _, w := range want {
		if out.Line(w) == "" {
			t.Errorf("no line says %q", w)
		}
	}
	for l := range strings.Lines(out.String()) {
		var rigs []string
		for _, f := range strings.Fields(l) {
			if strings.HasPrefix(f, "rig=") {
				rigs = append(rigs, f)
			}
		}
		if len(rigs) != 1 || rigs[0] != "rig="+serial {
			t.Errorf("the line names %q, want rig=%s once: %s", rigs, serial, l)
		}
	}
}

// Every line of a rig of a rigs file names it once, its driver's too (`rig=X rig=X` was
// logged for "rig halted": New named the rig keepRig had named). The rig is served halted, to
// be quick: calibrating over the camera's stream takes a while.
func TestRigsFileRigLinesNameItOnce(t *testing.T) {
	spec := twinRigSpec(t)

	var out logtest.Buffer
	reg := leftHalted{servedDrivers{added: make(chan *Driver, 1)}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		keepRig(ctx, reg, spec, slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	}()
	d := waitDriver(t, reg.servedDrivers, &out)
	haltAndRecover(t, d)
	cancel()
	<-done
	_ = d.Close() // as the registry would: the camera server waits for its stream to end
	checkNamedOnce(t, &out, spec.Serial, "grbl connected", "rig was halted before", "arm rig halted: not calibrated", "arm rig ready", "rig halted", "rig recovered")
}

// Every line of a twin names its rig once: its calibration's did not name it.
func TestTwinRigLinesNameItOnce(t *testing.T) {
	tw, err := twin.Start(twin.Options{Seed: 2, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })

	var out logtest.Buffer
	reg := servedDrivers{added: make(chan *Driver, 1)}
	stop, err := ServeTwin(context.Background(), reg, tw, slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})))
	if err != nil {
		t.Fatal(err)
	}
	d := waitDriver(t, reg, &out)
	haltAndRecover(t, d)
	stop()
	_ = d.Close()
	checkNamedOnce(t, &out, tw.Phone.Info().Serial, "grbl connected", "arm rig: calibrating", "arm rig calibration", "arm twin ready", "rig halted", "rig recovered")
}

// waitDriver is the driver reg was given once its rig calibrated.
func waitDriver(t *testing.T, reg servedDrivers, out *logtest.Buffer) *Driver {
	t.Helper()
	select {
	case d := <-reg.added:
		return d
	case <-time.After(60 * time.Second):
		t.Fatalf("the rig did not calibrate and join the registry within 60s; it logged:\n%s", out.String())
		return nil
	}
}

// twinRigSpec is a rigs file's entry for a digital twin served here: its controller over TCP,
// its camera and its calibration readback over HTTP.
func twinRigSpec(t *testing.T) RigSpec {
	t.Helper()
	tw, addr := servedTwin(t, 3)
	mux := http.NewServeMux()
	mux.Handle("/camera", tw.Camera.Handler())
	mux.Handle("/calibration", tw.ReadbackHandler())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	lo, hi := tw.RoughArea()
	return RigSpec{Serial: "arm-twin-1", GRBL: "tcp://" + addr, Camera: srv.URL + "/camera",
		Readback: srv.URL + "/calibration", ScreenArea: []float64{lo.X, lo.Y, hi.X, hi.Y}}
}

// A twin halted from before, with no calibration anywhere, is served halted and uncalibrated:
// its start logged the calibration's figures and panicked the node on the nil calibration.
func TestHaltedTwinWithoutCalibrationIsServed(t *testing.T) {
	tw, err := twin.Start(twin.Options{Seed: 2, Speed: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = tw.Close() })

	var out logtest.Buffer
	reg := leftHalted{servedDrivers{added: make(chan *Driver, 1)}}
	stop, err := ServeTwin(context.Background(), reg, tw, slog.New(slog.NewTextHandler(&out, nil)))
	if err != nil {
		t.Fatal(err)
	}
	d := waitDriver(t, reg.servedDrivers, &out)
	stop()
	_ = d.Close()
	if d.Calibration() != nil {
		t.Error("a halted twin was calibrated: calibrating moves the gantry before a person looked at it")
	}
	checkNamedOnce(t, &out, tw.Phone.Info().Serial, "arm rig halted: not calibrated", "arm twin ready, halted and not calibrated")
}
