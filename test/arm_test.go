package test

import (
	"bufio"
	"errors"
	"fmt"
	"image"
	"io"
	"log/slog"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/corral-farm/corral/arm/calib"
	"github.com/corral-farm/corral/arm/rig"
	"github.com/corral-farm/corral/arm/twin"
	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/internal/geom"
	"github.com/corral-farm/corral/nodes/android"
	"github.com/corral-farm/corral/nodes/device"
)

// armFarm is a farm of one node with a simulated phone and the digital twin of an arm rig,
// its gantry four times faster than real time.
func armFarm(t *testing.T) (*farmtest.Farm, *twin.Twin, string) {
	t.Helper()
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw := f.StartArmTwin("n1", 5, 4)
	return f, tw, tw.Phone.Info().Serial
}

// inputsAfter waits for the twin's phone to log more than n inputs and returns the new ones.
func inputsAfter(t *testing.T, tw *twin.Twin, n int) []string {
	t.Helper()
	var got []string
	farmtest.Eventually(t, 10*time.Second, func() bool {
		got = tw.Phone.InputLog()[n:]
		return len(got) > 0
	}, "the phone under the arm got an input")
	return got
}

// tappedAt checks that the phone gets a tap on bbox's centre after its n-th input. (The touch
// an abort or a stop cut short may come first: the phone tells a tap from a double tap only
// once its double-tap window has passed.)
func tappedAt(t *testing.T, tw *twin.Twin, n int, bbox []float64, after string) {
	t.Helper()
	want := bboxCentre(tw, bbox)
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return slices.ContainsFunc(tw.Phone.InputLog()[n:], func(line string) bool { return landedWithin(tw, line, want, 1) })
	}, "a tap at "+fmt.Sprint(bbox)+" after "+after)
}

// bboxCentre is the pixel at the centre of a bbox in screen fractions.
func bboxCentre(tw *twin.Twin, b []float64) image.Point {
	return image.Pt(int((b[0]+b[2])/2*float64(tw.Size.Width)), int((b[1]+b[3])/2*float64(tw.Size.Height)))
}

var tapAt = regexp.MustCompile(`^(tap|doubletap) (\d+) (\d+)`)

// landedWithin says whether the phone's input line is a tap or double tap within mm
// millimetres of pixel want on the glass.
func landedWithin(tw *twin.Twin, line string, want image.Point, mm float64) bool {
	m := tapAt.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	x, _ := strconv.Atoi(m[2])
	y, _ := strconv.Atoi(m[3])
	a := tw.ScreenToGantry.Apply(geom.Point{X: float64(want.X), Y: float64(want.Y)})
	b := tw.ScreenToGantry.Apply(geom.Point{X: float64(x), Y: float64(y)})
	return math.Hypot(a.X-b.X, a.Y-b.Y) <= mm
}

// An arm rig is a device like a phone: the PhysiClaw tools reach the phone under it through
// the gantry's finger, where they were asked to land, under the same leases.
func TestArmRigThroughTheFrontDoor(t *testing.T) {
	f, tw, serial := armFarm(t)
	c := f.Client("arm-agent")

	res := farmtest.MustCall(t, c, "list_available_devices", args("platform", "arm"))
	assert.Contains(t, farmtest.Text(res), serial)

	lease := leaseOf(t, farmtest.MustCall(t, c, "acquire_device", args("serial", serial)))
	other := f.Client("someone-else")
	res = farmtest.Call(t, other, "tap", args("serial", serial, "bbox", []float64{0.1, 0.1, 0.2, 0.2}))
	require.True(t, res.IsError, "a tap on a leased rig without the lease: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "busy")

	for _, c2 := range []struct {
		tool string
		bbox []float64
		want string
	}{
		{"tap", []float64{0.40, 0.30, 0.50, 0.34}, "tap "},
		{"double_tap", []float64{0.70, 0.60, 0.80, 0.64}, "doubletap "},
		{"long_press", []float64{0.20, 0.80, 0.30, 0.84}, "tap "},
	} {
		n := len(tw.Phone.InputLog())
		farmtest.MustCall(t, c, c2.tool, args("serial", serial, "lease", lease, "bbox", c2.bbox))
		got := inputsAfter(t, tw, n)
		require.Len(t, got, 1, "%s: %q", c2.tool, got)
		assert.True(t, strings.HasPrefix(got[0], c2.want), "%s made %q", c2.tool, got[0])
		assert.True(t, landedWithin(tw, got[0], bboxCentre(tw, c2.bbox), 1), "%s at %v landed at %q: more than 1 mm off", c2.tool, bboxCentre(tw, c2.bbox), got[0])
		if c2.tool == "long_press" {
			hold := regexp.MustCompile(`hold=([0-9.]+m?s)`).FindStringSubmatch(got[0])
			require.NotNil(t, hold, got[0])
			d, err := time.ParseDuration(hold[1])
			require.NoError(t, err)
			assert.GreaterOrEqual(t, d, time.Second, "long_press held %s", d)
		}
	}

	// Swipes and the iPhone's system gestures.
	for _, c2 := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"swipe", args("bbox", []float64{0.45, 0.6, 0.55, 0.65}, "direction", "up"), "swipe "},
		{"home_screen", nil, "key HOME"},
		{"go_back", nil, "key BACK"},
	} {
		n := len(tw.Phone.InputLog())
		a := args("serial", serial, "lease", lease)
		for k, v := range c2.args {
			a[k] = v
		}
		farmtest.MustCall(t, c, c2.tool, a)
		got := inputsAfter(t, tw, n)
		assert.True(t, strings.HasPrefix(got[len(got)-1], c2.want), "%s made %q", c2.tool, got)
	}

	// force_quit through the app switcher: the phone's app in front is stopped.
	require.NoError(t, tw.Phone.LaunchApp(t.Context(), "com.corral.notes")) // as a person opens it
	n := len(tw.Phone.InputLog())
	res = farmtest.MustCall(t, c, "force_quit", args("serial", serial, "lease", lease))
	var quit struct{ Quit bool }
	farmtest.Structured(t, res, &quit)
	assert.True(t, quit.Quit, farmtest.Text(res))
	farmtest.Eventually(t, 10*time.Second, func() bool {
		return slices.Contains(tw.Phone.InputLog()[n:], "terminate com.corral.notes")
	}, "the notes app quit from the app switcher")
	fg, err := tw.Phone.ForegroundApp(t.Context())
	require.NoError(t, err)
	assert.NotEqual(t, "com.corral.notes", fg)

	// A sequence runs its steps as one task, finger up at the end.
	n = len(tw.Phone.InputLog())
	farmtest.MustCall(t, c, "sequence", args("serial", serial, "lease", lease, // PhysiClaw's form
		"step1", map[string]any{"tool_name": "tap", "arg": map[string]any{"bbox": []float64{0.1, 0.5, 0.2, 0.55}}},
		"step2", map[string]any{"tool_name": "tap", "arg": map[string]any{"bbox": []float64{0.8, 0.5, 0.9, 0.55}}}))
	farmtest.Eventually(t, 10*time.Second, func() bool { return len(tw.Phone.InputLog()) >= n+2 }, "both taps of the sequence")
	got := tw.Phone.InputLog()[n:]
	assert.True(t, landedWithin(tw, got[0], bboxCentre(tw, []float64{0.1, 0.5, 0.2, 0.55}), 1), "%q", got)
	assert.True(t, landedWithin(tw, got[1], bboxCentre(tw, []float64{0.8, 0.5, 0.9, 0.55}), 1), "%q", got)
	assert.False(t, tw.GRBL.Snapshot().FingerDown, "the finger is down after the gestures")

	// The screenshot is the camera's frame rectified to the screen.
	res = farmtest.MustCall(t, c, "screenshot", args("serial", serial, "lease", lease))
	var shot struct{ Width, Height int }
	farmtest.Structured(t, res, &shot)
	assert.Equal(t, tw.Size.Width, shot.Width)
	assert.Equal(t, tw.Size.Height, shot.Height)

	// Out of reach: the finger never leaves the calibrated screen.
	before := tw.GRBL.Snapshot()
	res = farmtest.Call(t, c, "tap_abs_xy", args("serial", serial, "lease", lease, "x", tw.Size.Width+500, "y", 10))
	require.True(t, res.IsError, farmtest.Text(res))
	assert.Equal(t, before.Pos, tw.GRBL.Snapshot().Pos, "the gantry moved for an off-screen tap")

	// A tool the rig cannot serve says so and what can.
	res = farmtest.Call(t, c, "app_launch", args("serial", serial, "lease", lease, "packageName", "com.corral.notes"))
	require.True(t, res.IsError)
	assert.Contains(t, farmtest.Text(res), "unsupported")

	// PhysiClaw's paste: send_to_clipboard (the rig's helper), long_press the field, tap Paste.
	require.NoError(t, tw.Phone.LaunchApp(t.Context(), "com.corral.notes"))
	farmtest.MustCall(t, c, "send_to_clipboard", args("serial", serial, "lease", lease, "text", "pasted by the arm"))
	farmtest.MustCall(t, c, "long_press", args("serial", serial, "lease", lease, "bbox", []float64{0.3, 0.3, 0.7, 0.4}))
	farmtest.MustCall(t, c, "tap", args("serial", serial, "lease", lease, "bbox", []float64{0.06, 0.15, 0.37, 0.21})) // Paste
	farmtest.Eventually(t, 10*time.Second, func() bool { return tw.Phone.Note() == "pasted by the arm" },
		"the clipboard pasted into the note")

	// unlock_phone with no passcode for the rig, which cannot tell whether the phone is locked,
	// does not claim it is: it says to peek, and how to give a passcode; the finger stays put.
	require.NoError(t, tw.Phone.PressKey(t.Context(), "POWER"))
	before = tw.GRBL.Snapshot()
	res = farmtest.Call(t, c, "unlock_phone", args("serial", serial, "lease", lease))
	require.False(t, res.IsError, farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "cannot tell whether its lock screen shows")
	assert.Contains(t, farmtest.Text(res), "start the node with --passcodes FILE")
	assert.Equal(t, before.Pos, tw.GRBL.Snapshot().Pos, "the gantry moved for unlock_phone without a passcode")
}

// errSucceeded marks a call that should have failed.
var errSucceeded = errors.New("the call succeeded")

// abort_task in the middle of a slow swipe stops the gantry with the finger up, and the rig
// takes the next task.
func TestArmAbortLiftsTheFinger(t *testing.T) {
	f, tw, serial := armFarm(t)
	c := f.Client("arm-agent")
	done := make(chan error, 1)
	go func() {
		res, err := farmtest.TryCall(t, c, "swipe", args("serial", serial, "from_x", 0.3, "from_y", 0.7, "to_x", 0.7, "to_y", 0.3, "duration", 60))
		if err == nil && !res.IsError {
			err = errSucceeded
		}
		done <- err
	}()
	farmtest.Eventually(t, 20*time.Second, func() bool { return tw.GRBL.Snapshot().FingerDown }, "the finger down on the glass")
	farmtest.MustCall(t, f.Client("operator"), "abort_task", args("serial", serial))
	select {
	case err := <-done:
		require.NotErrorIs(t, err, errSucceeded, "the aborted swipe reported success")
	case <-time.After(freeWithin):
		t.Fatal("the aborted swipe did not end")
	}
	farmtest.Eventually(t, 10*time.Second, func() bool {
		s := tw.GRBL.Snapshot()
		return !s.FingerDown && !s.Spindle && s.State == "Idle"
	}, "the gantry at rest with the finger up")
	n := len(tw.Phone.InputLog())
	farmtest.MustCall(t, c, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	tappedAt(t, tw, n, []float64{0.4, 0.4, 0.5, 0.5}, "the abort")
}

// A rig's calibration lives in the farm's KV: arm_calibrate measures it again and keeps it, and
// a rig driven anew (a node restart) takes it from there without probing the phone.
func TestArmCalibrationKeptInTheFarm(t *testing.T) {
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1, Platforms: []device.Platform{android.Platform(), rig.Platform()}})
	tw, err := twin.Start(twin.Options{Seed: 8, Speed: 4})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tw.Close() })
	stop := f.ServeArmTwin("n1", tw)
	serial := tw.Phone.Info().Serial

	nc, err := broker.Connect(broker.ConnectOptions{URL: f.URL, Name: "arm-test"}, slog.New(slog.DiscardHandler))
	require.NoError(t, err)
	t.Cleanup(nc.Close)
	stores, err := broker.EnsureStores(t.Context(), nc, broker.StoreOptions{})
	require.NoError(t, err)
	kept := func() (*calib.Calibration, uint64) {
		e, err := stores.Calibrations.Get(t.Context(), broker.CalibrationKey("n1", serial))
		require.NoError(t, err, "the farm keeps no calibration of %s", serial)
		cal, err := calib.Parse(e.Value())
		require.NoError(t, err)
		return cal, e.Revision()
	}
	first, rev := kept()
	assert.Equal(t, serial, first.Rig)

	// arm_calibrate, with progress: probes, a check touch, a new entry.
	c := f.Client("arm-operator")
	res := farmtest.MustCall(t, c, "arm_calibrate", args("serial", serial))
	var rep struct {
		Probes            int
		ValidationErrorMM float64 `json:"validation_error_mm"`
	}
	farmtest.Structured(t, res, &rep)
	assert.Equal(t, 9, rep.Probes)
	assert.LessOrEqual(t, rep.ValidationErrorMM, 1.0)
	again, rev2 := kept()
	assert.Greater(t, rev2, rev, "arm_calibrate kept nothing new")
	assert.True(t, again.At.After(first.At), "the kept calibration is the old one")

	// corral arm calibrate guides a person through the same, step by step.
	out, err := exec.Command(corral(t), "arm", "calibrate", "--gateway", f.Gateway().MCPURL, serial).CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, want := range []string{"Keep the phone still", "calibration page shown", "probe 9 of 9", "validation tap", "calibrated: 9 probes"} {
		assert.Contains(t, string(out), want)
	}
	_, rev3 := kept()
	assert.Greater(t, rev3, rev2, "corral arm calibrate kept nothing new")
	phone := f.Devices()[0].Serial
	if phone == serial {
		phone = f.Devices()[1].Serial
	}
	out, err = exec.Command(corral(t), "arm", "calibrate", "--gateway", f.Gateway().MCPURL, phone).CombinedOutput()
	require.Error(t, err, "calibrating a phone: %s", out)
	assert.Contains(t, string(out), "cannot calibrate")

	// Driven anew, the rig takes the kept calibration: the finger does not move.
	stopped := func() {
		stop()
		farmtest.Eventually(t, 10*time.Second, func() bool {
			d, ok := f.Gateway().Client.Device(serial)
			return ok && d.State == broker.StateOffline
		}, "the rig off the node")
	}
	stopped()
	finger := tw.GRBL.Snapshot().LastFinger
	stop = f.ServeArmTwin("n1", tw)
	assert.Equal(t, finger, tw.GRBL.Snapshot().LastFinger, "the rig probed the phone again instead of taking the kept calibration")
	n := len(tw.Phone.InputLog())
	farmtest.MustCall(t, c, "tap", args("serial", serial, "bbox", []float64{0.3, 0.3, 0.4, 0.34}))
	got := inputsAfter(t, tw, n)
	assert.True(t, landedWithin(tw, got[0], image.Pt(int(0.35*float64(tw.Size.Width)), int(0.32*float64(tw.Size.Height))), 1),
		"a tap through the kept calibration landed at %q", got)

	// A kept calibration that does not parse is measured again, and kept anew.
	stopped()
	_, err = stores.Calibrations.Put(t.Context(), broker.CalibrationKey("n1", serial), []byte(`{"version":1,"rig":"`+serial+`"}`))
	require.NoError(t, err)
	finger = tw.GRBL.Snapshot().LastFinger
	f.ServeArmTwin("n1", tw)
	assert.NotEqual(t, finger, tw.GRBL.Snapshot().LastFinger, "a broken kept calibration was used")
	fresh, _ := kept()
	assert.Equal(t, serial, fresh.Rig)
}

// A rig of a rigs file: `corral sim arm` runs a twin on its own (GRBL on TCP, the camera as
// MJPEG, the calibration readback, the clipboard helper) and prints the rigs file entry; `corral up --arm FILE`
// calibrates against it and serves it; when the controller goes away the rig goes offline.
func TestArmRigsFileWithCorralSimArm(t *testing.T) {
	sim := exec.Command(corral(t), "sim", "arm", "--listen", "127.0.0.1:0", "--http", "127.0.0.1:0", "--pty=false", "--seed", "4", "--log-level", "warn")
	stdout, err := sim.StdoutPipe()
	require.NoError(t, err)
	sim.Stderr = os.Stderr
	require.NoError(t, sim.Start())
	t.Cleanup(func() { _ = sim.Process.Kill(); _ = sim.Wait() })
	var spec strings.Builder
	lines := bufio.NewScanner(stdout)
	for lines.Scan() {
		spec.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), "clipboard:") {
			break
		}
	}
	go func() {
		for lines.Scan() {
		}
	}()
	require.Contains(t, spec.String(), "grbl: tcp://127.0.0.1:", "corral sim arm printed no rigs file entry")
	// The twin runs in another process on the same loaded machine: give its link room.
	file := filepath.Join(t.TempDir(), "rigs.yaml")
	require.NoError(t, os.WriteFile(file, []byte(spec.String()+"    link_timeout: 15s\n"), 0o600))

	url := corralUp(t, "--sim", "0", "--adb", "off", "--arm", file)
	const serial = "arm-twin-4"
	farmtest.Eventually(t, 60*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", url)
		return err == nil && strings.Contains(out, serial) && strings.Contains(out, "online")
	}, "the rig of the rigs file calibrated and online")
	out, err := runCorral(t, "call", "--gateway", url, "tap", `{"serial":"`+serial+`","bbox":[0.4,0.4,0.5,0.5]}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, "tapped the centre")
	out, err = runCorral(t, "call", "--gateway", url, "send_to_clipboard", `{"serial":"`+serial+`","text":"over the helper"}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, "put 15 characters on the clipboard")

	require.NoError(t, sim.Process.Kill())
	farmtest.Eventually(t, 30*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", url)
		return err == nil && strings.Contains(out, serial) && strings.Contains(out, "offline")
	}, "the rig offline once its controller is gone")
}

// `corral up --sim-arm 1` puts a twin in the farm, as the README says.
func TestCorralUpWithSimulatedArm(t *testing.T) {
	url := corralUp(t, "--sim", "0", "--adb", "off", "--sim-arm", "1")
	farmtest.Eventually(t, 60*time.Second, func() bool {
		out, err := runCorral(t, "devices", "--gateway", url)
		return err == nil && strings.Contains(out, "arm-twin-local-01") && strings.Contains(out, "online")
	}, "the twin calibrated and online, named after its node")
	out, err := runCorral(t, "call", "--gateway", url, "home_screen", `{"serial":"arm-twin-local-01"}`)
	require.NoError(t, err, out)
	assert.Contains(t, out, "swiped up from the bottom edge", "the arm makes the home gesture and says so")
}

// GRBL faults at the device: an alarm in mid-swipe fails the swipe with GRBL's words and the
// finger up, gestures are refused until arm_recover, then the rig taps again; a lost link
// takes the rig offline with the reason.
func TestArmFaultsThroughTheFrontDoor(t *testing.T) {
	f, tw, serial := armFarm(t)
	c := f.Client("arm-agent")
	done := make(chan *mcpgo.CallToolResult, 1)
	go func() {
		res, _ := farmtest.TryCall(t, c, "swipe", args("serial", serial, "from_x", 0.3, "from_y", 0.7, "to_x", 0.7, "to_y", 0.3, "duration", 30))
		done <- res
	}()
	farmtest.Eventually(t, 20*time.Second, func() bool { return tw.GRBL.Snapshot().FingerDown }, "the finger down on the glass")
	tw.GRBL.InjectAlarm(1) // a hard limit tripped
	select {
	case res := <-done:
		require.NotNil(t, res)
		require.True(t, res.IsError, "the swipe through an alarm succeeded: %s", farmtest.Text(res))
		assert.Contains(t, farmtest.Text(res), "Hard limit")
	case <-time.After(freeWithin):
		t.Fatal("the swipe went on through the alarm")
	}
	assert.False(t, tw.GRBL.Snapshot().FingerDown, "the finger is down after the alarm")

	res := farmtest.Call(t, c, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	require.True(t, res.IsError, "a tap in alarm: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "arm_recover")
	assert.Equal(t, 1.0, deviceGauge(t, f, serial, "alarm"), "corral_device_reading alarm during the alarm")
	out, err := runCorral(t, "arm", "recover", "--gateway", f.Gateway().MCPURL, serial)
	require.NoError(t, err, out)
	assert.Contains(t, out, "recovered")
	n := len(tw.Phone.InputLog())
	farmtest.MustCall(t, c, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	tappedAt(t, tw, n, []float64{0.4, 0.4, 0.5, 0.5}, "arm_recover")
	assert.Equal(t, 0.0, deviceGauge(t, f, serial, "alarm"), "corral_device_reading alarm after arm_recover")
	assert.GreaterOrEqual(t, deviceGauge(t, f, serial, "gestures"), 2.0)
	e := deviceGauge(t, f, serial, "calibration_error_mm")
	assert.True(t, e >= 0 && e <= 1, "calibration_error_mm %g", e)

	tw.GRBL.Disconnect()
	farmtest.Eventually(t, 20*time.Second, func() bool {
		d, ok := f.Gateway().Client.Device(serial)
		return ok && d.State == broker.StateOffline
	}, "the rig offline once its controller's link is lost")
	assert.False(t, tw.GRBL.Snapshot().FingerDown)
}

// deviceGauge reads corral_device_reading of a device from the farm's registry.
func deviceGauge(t *testing.T, f *farmtest.Farm, serial, name string) float64 {
	t.Helper()
	v, ok := farmGauge(t, f, "corral_device_reading", map[string]string{"serial": serial, "name": name})
	if !ok {
		t.Fatalf("no corral_device_reading{serial=%q,name=%q}", serial, name)
	}
	return v
}

// farmGauge reads the gauge family of the farm's registry whose labels include want.
func farmGauge(t *testing.T, f *farmtest.Farm, family string, want map[string]string) (float64, bool) {
	t.Helper()
	families, err := f.Registry.Gather()
	require.NoError(t, err)
	for _, fam := range families {
		if fam.GetName() != family {
			continue
		}
	metrics:
		for _, m := range fam.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range want {
				if labels[k] != v {
					continue metrics
				}
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

// emergency_stop halts the gantry at once, outside the queue, and holds it: a task queued by
// someone else behind the stopped one does not move the finger; arm_recover resumes.
func TestArmEmergencyStop(t *testing.T) {
	f, tw, serial := armFarm(t)
	agent, other := f.Client("arm-agent"), f.Client("someone-else")
	swipe := make(chan *mcpgo.CallToolResult, 1)
	go func() {
		res, _ := farmtest.TryCall(t, agent, "swipe", args("serial", serial, "from_x", 0.3, "from_y", 0.7, "to_x", 0.7, "to_y", 0.3, "duration", 30))
		swipe <- res
	}()
	farmtest.Eventually(t, 20*time.Second, func() bool { return tw.GRBL.Snapshot().FingerDown }, "the finger down on the glass")
	queued := make(chan *mcpgo.CallToolResult, 1)
	go func() {
		res, _ := farmtest.TryCall(t, other, "tap", args("serial", serial, "bbox", []float64{0.1, 0.1, 0.2, 0.2}, "wait_seconds", 60))
		queued <- res
	}()
	farmtest.Eventually(t, 10*time.Second, func() bool {
		q, _ := farmGauge(t, f, "corral_device_queue_depth", map[string]string{"serial": serial})
		return q > 0
	}, "someone else's tap queued behind the swipe")

	res := farmtest.MustCall(t, f.Client("operator"), "emergency_stop", args("serial", serial))
	var stop struct {
		Halted  bool
		Aborted []string
	}
	farmtest.Structured(t, res, &stop)
	assert.True(t, stop.Halted, farmtest.Text(res))
	assert.Len(t, stop.Aborted, 1, "the swipe aborted")
	for _, ch := range []chan *mcpgo.CallToolResult{swipe, queued} {
		select {
		case r := <-ch:
			require.NotNil(t, r)
			assert.True(t, r.IsError, "a call went on through the emergency stop: %s", farmtest.Text(r))
		case <-time.After(freeWithin):
			t.Fatal("a call did not end after the emergency stop")
		}
	}
	s := tw.GRBL.Snapshot()
	assert.False(t, s.FingerDown, "the finger is down after the emergency stop")
	n := len(tw.Phone.InputLog())
	res = farmtest.Call(t, other, "tap", args("serial", serial, "bbox", []float64{0.1, 0.1, 0.2, 0.2}))
	require.True(t, res.IsError, "a tap on a halted rig: %s", farmtest.Text(res))
	assert.Contains(t, farmtest.Text(res), "arm_recover")
	assert.Equal(t, s.Pos, tw.GRBL.Snapshot().Pos, "the halted gantry moved")

	farmtest.MustCall(t, f.Client("operator"), "arm_recover", args("serial", serial))
	farmtest.MustCall(t, other, "tap", args("serial", serial, "bbox", []float64{0.4, 0.4, 0.5, 0.5}))
	tappedAt(t, tw, n, []float64{0.4, 0.4, 0.5, 0.5}, "arm_recover")
}

// `corral arm page` serves the calibration page that a real phone's browser opens, named by
// the rig, and says where the rigs file's readback points.
func TestCorralArmPage(t *testing.T) {
	cmd := exec.Command(corral(t), "arm", "page", "--listen", "127.0.0.1:0", "--log-level", "warn")
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var base string
	lines := bufio.NewScanner(stdout)
	for base == "" && lines.Scan() {
		if m := regexp.MustCompile(`readback: (http://\S+)/RIG/events`).FindStringSubmatch(lines.Text()); m != nil {
			base = m[1]
		}
	}
	require.NotEmpty(t, base, "corral arm page printed no readback URL")
	resp, err := http.Get(base + "/bench-arm-1/")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, string(page), "<title>Corral calibration: bench-arm-1</title>")
	assert.Contains(t, string(page), `addEventListener("pointerdown"`)
}
