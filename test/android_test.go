package test

import (
	"encoding/base64"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/corral-farm/corral/broker"
	"github.com/corral-farm/corral/internal/farmtest"
	"github.com/corral-farm/corral/nodes/android/adbsim"
	"github.com/corral-farm/corral/nodes/device"
	"github.com/corral-farm/corral/nodes/tools"
)

// androidFarm is a farm whose node n1 has a simulated Android device behind a real adb server.
func androidFarm(t *testing.T, opts ...adbsim.Option) (*farmtest.Farm, string, *adbsim.Device) {
	t.Helper()
	tool(t, "adb")
	f := farmtest.Start(t, farmtest.Options{PhonesPerNode: 1})
	adb, devs := f.StartAndroid("n1", 1, opts...)
	d := devs[0]
	// The bound: a connected device is listed within 1 s (StartAndroid returns once adb
	// has connected it).
	if took := until(t, func() bool { return state(f, d) == broker.StateOnline }, "%s online", d.Serial()); took > time.Second {
		t.Errorf("android device %s online %v after adb connect; want within 1 s", d.Serial(), took)
	}
	return f, adb.Addr(), d
}

// until waits for cond (failing the test after 10 s) and returns how long it took.
func until(t *testing.T, cond func() bool, format string, args ...any) time.Duration {
	t.Helper()
	start := time.Now()
	farmtest.Eventually(t, 10*time.Second, cond, format, args...)
	return time.Since(start)
}

// state is the device's state in the gateway's registry.
func state(f *farmtest.Farm, d *adbsim.Device) string {
	e, _ := f.Gateway().Client.Device(d.Serial())
	return e.State
}

func lastCommand(d *adbsim.Device, prefix string) string {
	cmds := d.Commands()
	for i := len(cmds) - 1; i >= 0; i-- {
		if strings.HasPrefix(cmds[i], prefix) {
			return cmds[i]
		}
	}
	return ""
}

// Tools land as the exact adb commands on the simulated device, through the real adb server.
func TestAndroidToolsLandAsADBCommands(t *testing.T) {
	// A phone whose shell may not write its input devices: touches and keys fall back to
	// `input`, the commands of docs/android.md.
	f, _, d := androidFarm(t, adbsim.WithInputDevicesDenied())
	c := f.Client("agent")
	var list struct {
		AndroidDevices []string `json:"androidDevices"`
	}
	farmtest.Structured(t, farmtest.MustCall(t, c, "list_available_devices", nil), &list)
	if !slices.Contains(list.AndroidDevices, d.Serial()) {
		t.Fatalf("%s not in androidDevices %v", d.Serial(), list.AndroidDevices)
	}
	s := d.Serial()
	steps := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"tap_xy", args("serial", s, "x", 0.5, "y", 0.25), "input tap 540 600"},
		{"tap_abs_xy", args("serial", s, "x", 100, "y", 200), "input tap 100 200"},
		{"double_tap_xy", args("serial", s, "x", 0.5, "y", 0.25), "input tap 540 600 & sleep 0.15; input tap 540 600; wait"},
		{"swipe", args("serial", s, "from_x", 0.5, "from_y", 0.8, "to_x", 0.5, "to_y", 0.2, "duration", 0.3), "input swipe 540 1919 540 480 300"},
		{"press_button", args("serial", s, "button", "volume_up"), "input keyevent KEYCODE_VOLUME_UP"},
		{"home", args("serial", s), "input keyevent KEYCODE_HOME"},
		{"input", args("serial", s, "text", "it's a $(test)"), `input text 'it'\''s%sa%s$(test)'`},
		{"app_launch", args("serial", s, "packageName", "com.corral.notes"), "monkey -p com.corral.notes -c android.intent.category.LAUNCHER 1"},
		{"app_terminate", args("serial", s, "packageName", "com.corral.notes"), "am force-stop com.corral.notes"},
	}
	for _, st := range steps {
		farmtest.MustCall(t, c, st.tool, st.args)
		if got := lastCommand(d, strings.Fields(st.want)[0]); got != st.want {
			t.Errorf("%s: the device received %q, want %q (all: %q)", st.tool, got, st.want, d.Commands())
		}
	}
	res := farmtest.MustCall(t, c, "screenshot", args("serial", s))
	img, mime := farmtest.Image(res)
	raw, _ := base64.StdEncoding.DecodeString(img)
	if mime != "image/jpeg" || len(raw) < 1000 || len(raw) > tools.MaxImageBytes {
		t.Fatalf("screenshot: %s of %d bytes; want JPEG ≤ 300 KB", mime, len(raw))
	}
	// The raw framebuffer: no PNG to compress on the device and decode on the node.
	if got := lastCommand(d, "screencap"); got != "screencap" {
		t.Fatalf("screenshot landed as %q", got)
	}
	res = farmtest.MustCall(t, c, "screenshot", args("serial", s, "max_width", 540))
	var shot tools.ScreenshotResult
	farmtest.Structured(t, res, &shot)
	if shot.Width != 540 || shot.Height != 1200 {
		t.Errorf("screenshot max_width 540: %dx%d", shot.Width, shot.Height)
	}
}

// Issue 16: on a phone whose shell may write its input devices (stock Android), touches and
// the phone's buttons are written as input events to its touchscreen and key devices (the
// touchscreen's range 0-4095, not the screen's pixels), through one stream kept open: no
// `input` command runs, so none pays its start-up. get_device_status says how touches go.
func TestAndroidTouchesLandAsInputEvents(t *testing.T) {
	f, _, d := androidFarm(t)
	c := f.Client("agent")
	s := d.Serial()
	var status struct{ Extra map[string]string }
	farmtest.Structured(t, farmtest.MustCall(t, c, "get_device_status", args("serial", s)), &status)
	if touch := status.Extra["touch"]; !strings.Contains(touch, "/dev/input/event") {
		t.Errorf("get_device_status extra touch = %q, want the event device", touch)
	}
	before := len(d.Commands())
	farmtest.MustCall(t, c, "tap_xy", args("serial", s, "x", 0.5, "y", 0.25))
	farmtest.MustCall(t, c, "double_tap_xy", args("serial", s, "x", 0.25, "y", 0.5))
	farmtest.MustCall(t, c, "swipe", args("serial", s, "from_x", 0.5, "from_y", 0.8, "to_x", 0.5, "to_y", 0.2, "duration", 0.3))
	farmtest.MustCall(t, c, "press_button", args("serial", s, "button", "volume_up"))
	farmtest.MustCall(t, c, "home", args("serial", s))
	// The phone acts on events as they come: wait for the last one to land.
	farmtest.Eventually(t, 5*time.Second, func() bool {
		log := d.Phone().InputLog()
		return len(log) > 0 && log[len(log)-1] == "key HOME"
	}, "the home key landed")
	taps := d.Taps()
	if len(taps) < 3 {
		t.Fatalf("the device saw %d taps, want the tap and the double tap's two: %+v", len(taps), taps)
	}
	taps = taps[len(taps)-3:]
	near := func(p device.Point, x, y int) bool { return abs(p.X-x) <= 1 && abs(p.Y-y) <= 1 }
	if !near(taps[0].Point, 540, 600) || !near(taps[1].Point, 270, 1200) || !near(taps[2].Point, 270, 1200) {
		t.Errorf("taps landed at %v, %v, %v; want (540,600) then (270,1200) twice", taps[0].Point, taps[1].Point, taps[2].Point)
	}
	if gap := taps[2].At.Sub(taps[1].Up); gap < 40*time.Millisecond || gap > 300*time.Millisecond {
		t.Errorf("the double tap's second touch came %s after the first lifted; Android's window is 40-300 ms", gap)
	}
	log := strings.Join(d.Phone().InputLog(), "\n")
	for _, want := range []string{"swipe 540 1919 540 480", "key VOLUME_UP", "key HOME"} {
		if !strings.Contains(log, want) {
			t.Errorf("the phone's input log lacks %q:\n%s", want, log)
		}
	}
	for _, cmd := range d.Commands()[before:] {
		if strings.HasPrefix(cmd, "input ") {
			t.Errorf("a touch or key ran %q: it pays input's start-up", cmd)
		}
	}
}

func abs(n int) int { return max(n, -n) }

// A device that is disconnected goes offline within a second and its call in flight fails
// clearly; reconnected, it comes back under the same serial.
func TestAndroidDisconnectAndReconnect(t *testing.T) {
	f, adbAddr, d := androidFarm(t)
	c := f.Client("agent")
	d.SetDelay(5 * time.Second)
	done := farmtest.Go(t, c, "tap_xy", args("serial", d.Serial(), "x", 0.5, "y", 0.5))
	farmtest.Eventually(t, 5*time.Second, func() bool { return state(f, d) == broker.StateBusy }, "the tap runs on the device")
	port := strings.Split(adbAddr, ":")[1]
	if out, err := exec.Command("adb", "-P", port, "disconnect", d.Addr()).CombinedOutput(); err != nil {
		t.Fatalf("adb disconnect: %v %s", err, out)
	}
	// The bound: offline within 1 s of the disconnect, as the registry shows it.
	if took := until(t, func() bool { return state(f, d) == broker.StateOffline }, "offline after the disconnect"); took > time.Second {
		t.Errorf("offline %v after adb disconnect returned; want within 1 s", took)
	}
	select {
	case answer := <-done:
		contains(t, farmtest.Text(answer.Get(t)), "disconnected")
	case <-time.After(5 * time.Second):
		t.Fatal("the call in flight has not failed 5 s after the device went offline")
	}
	d.SetDelay(0)
	if out, err := exec.Command("adb", "-P", port, "connect", d.Addr()).CombinedOutput(); err != nil {
		t.Fatalf("adb connect: %v %s", err, out)
	}
	farmtest.Eventually(t, 10*time.Second, func() bool { return state(f, d) == broker.StateOnline }, "back online under the same serial")
	farmtest.MustCall(t, c, "tap_xy", args("serial", d.Serial(), "x", 0.5, "y", 0.5))
}

// abort_task during a slow device command (a tap the device holds a minute, with a deadline past
// that) ends it long before the minute is up, and the next call works.
func TestAndroidAbortSlowCommand(t *testing.T) {
	f, _, d := androidFarm(t)
	c, op := f.Client("agent"), f.Client("operator")
	d.SetDelay(time.Minute)
	done := farmtest.Go(t, c, "tap_xy", args("serial", d.Serial(), "x", 0.1, "y", 0.1, "timeout_ms", 90_000))
	farmtest.Eventually(t, 5*time.Second, func() bool { return state(f, d) == broker.StateBusy }, "the tap runs on the device")
	start := time.Now()
	farmtest.MustCall(t, op, "abort_task", args("serial", d.Serial()))
	select {
	case answer := <-done:
		took := time.Since(start)
		contains(t, farmtest.Text(answer.Get(t)), "aborted")
		if took > freeWithin {
			t.Fatalf("the tap ended %v after abort_task was called; want within %v of its minute", took, freeWithin)
		}
	case <-time.After(time.Until(start.Add(freeWithin))):
		t.Fatalf("the slow command still runs %v after abort_task was called", freeWithin)
	}
	d.SetDelay(0)
	farmtest.MustCall(t, c, "get_screen_size", args("serial", d.Serial()))
}
